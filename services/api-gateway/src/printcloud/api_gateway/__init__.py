"""PrintCloud edge API gateway: authentication, scopes, request ids, the error envelope and the public REST API."""
