"""The public representations of the PrintCloud API, defined once.

Each model here is what the API sends (a print job, a printer, an event, an error), field for
field: the gateway's OpenAPI document is generated from them, the SDKs are generated from that
document, and a test holds what the services render to exactly these fields.
"""
