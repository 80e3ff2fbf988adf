"""`flask --app wsgi lti ...`: register platforms, list and remove them, list LMS courses, send waiting scores."""

from __future__ import annotations

import click
from flask.cli import AppGroup

from grader.lti import contexts, outbox, platforms

lti = AppGroup("lti", help="LTI 1.3: platforms (LMSs) and grade passback.")
platform_group = AppGroup("platform", help="LMS platforms this tool trusts.")
lti.add_command(platform_group)


@platform_group.command("add")
@click.option("--issuer", required=True, help="The platform's issuer (iss), e.g. https://moodle.example.org")
@click.option("--client-id", required=True, help="The client id the platform gave this tool.")
@click.option("--deployment-id", required=True, help="The deployment id (run again to add another).")
@click.option("--auth-login-url", required=True, help="The platform's OIDC authorisation endpoint.")
@click.option("--auth-token-url", required=True, help="The platform's OAuth2 token endpoint.")
@click.option("--key-set-url", required=True, help="The platform's public keys (JWKS).")
def add(issuer: str, client_id: str, deployment_id: str, auth_login_url: str, auth_token_url: str,
        key_set_url: str) -> None:  # fmt: skip
    """Register a platform (or add a deployment to one registered already)."""
    try:
        platform, added = platforms.add(platforms.NewPlatform(issuer, client_id, deployment_id, auth_login_url,
                                                              auth_token_url, key_set_url))  # fmt: skip
    except platforms.PlatformError as error:
        raise click.ClickException(str(error)) from None
    what = "added deployment" if added else "updated; deployment already registered:"
    click.echo(f"platform {platform.issuer} (client {platform.client_id}): {what} {deployment_id}")


@platform_group.command("list")
def list_platforms() -> None:
    """List the registered platforms, their deployments and endpoints."""
    found = platforms.listing()
    for platform in found:
        deployments = ", ".join(d.deployment_id for d in platform.deployments)
        click.echo(f"{platform.issuer}  client={platform.client_id}  deployments={deployments}\n"
                   f"  login={platform.auth_login_url}\n  token={platform.auth_token_url}\n"
                   f"  keys={platform.key_set_url}")  # fmt: skip
    if not found:
        click.echo("no platforms registered")


@platform_group.command("remove")
@click.option("--issuer", required=True)
@click.option("--client-id", default=None, help="Only this client id of the issuer (default: all of them).")
def remove(issuer: str, client_id: str | None) -> None:
    """Forget a platform: its launches are refused from now on, its waiting scores dropped."""
    removed = platforms.remove(issuer, client_id)
    if not removed:
        raise click.ClickException(f"no platform with issuer {issuer}")
    click.echo(f"removed {removed} platform(s) with issuer {issuer}")


@lti.command("contexts")
def list_contexts() -> None:
    """List the LMS courses (contexts) and the course each maps to."""
    found = contexts.listing()
    for issuer, context, code in found:
        roster = "roster" if context.memberships_url else "no roster"
        click.echo(f"{issuer}  deployment={context.deployment_id}  context={context.context_id}  -> {code}  "
                   f"({context.title or 'untitled'}; {roster})")  # fmt: skip
    if not found:
        click.echo("no LMS course mapped yet")


@lti.command("send-scores")
def send_scores() -> None:
    """Send the scores waiting in the outbox that are due (the reaper does this on its timer too)."""
    done = outbox.deliver_due()
    click.echo(f"scores sent {len(done.sent)}, failed {len(done.failed)}, waiting {outbox.waiting()}")
