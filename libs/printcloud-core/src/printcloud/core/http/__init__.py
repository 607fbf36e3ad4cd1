"""HTTP at the public edge (the protocol with its limits, the error envelope and security headers,
request context, metrics, bounded JSON) and outbound (the guarded client and its pools)."""
