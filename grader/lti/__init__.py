"""LTI 1.3 (LTI Advantage): the service as a tool inside an LMS.

keys: the tool's RSA key pair and its JWKS. platforms: the registry of LMS platforms (and the
pylti1p3 tool configuration read from it). launch: OIDC login and the signed launch, accounts
linked to (issuer, sub). contexts: each LMS course (context) as a course of ours. deep_linking:
the course's content an instructor picks from. outbox: scores queued with each grade change and
sent to the platform's line item after commit. roster: the LMS course's learners (NRPS). views,
course_views, cli: the web endpoints under /lti and the `flask lti` commands.
"""
