"""LTI 1.3 (LTI Advantage): the service as a tool inside an LMS.

keys: the tool's RSA key pair and its JWKS. platforms: the registry of LMS platforms (and the
pylti1p3 tool configuration read from it). launch: OIDC login and the signed launch, accounts
linked to (issuer, sub). deep_linking: the catalogue an instructor picks from. outbox: scores
queued with each attempt and sent to the platform's line item after commit. views, cli: the
web endpoints under /lti and the `flask lti` commands.
"""
