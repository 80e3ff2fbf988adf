"""`flask lti platform add/list/remove`, `flask lti contexts`."""

from __future__ import annotations

from flask import Flask

from tests.lti.platform import FakePlatform


def test_list_add_deployment_and_remove(app: Flask, platform: FakePlatform) -> None:
    cli = app.test_cli_runner()
    listed = cli.invoke(args=["lti", "platform", "list"]).output
    assert platform.issuer in listed and "deployments=deployment-1" in listed and f"keys={platform.url}/jwks" in listed
    args = platform.cli_args()
    args[args.index("deployment-1")] = "deployment-2"
    assert "added deployment deployment-2" in cli.invoke(args=args).output
    assert "deployments=deployment-1, deployment-2" in cli.invoke(args=["lti", "platform", "list"]).output
    assert "removed 1" in cli.invoke(args=["lti", "platform", "remove", "--issuer", platform.issuer]).output
    assert "no platforms registered" in cli.invoke(args=["lti", "platform", "list"]).output
    missing = cli.invoke(args=["lti", "platform", "remove", "--issuer", platform.issuer])
    assert missing.exit_code != 0 and "no platform with issuer" in missing.output


def test_a_bad_url_is_refused(app: Flask, platform: FakePlatform) -> None:
    args = platform.cli_args()
    args[args.index(f"{platform.url}/jwks")] = "ftp://keys"
    result = app.test_cli_runner().invoke(args=args)
    assert result.exit_code != 0 and "key-set-url must be an http(s) URL" in result.output


def test_a_removed_platform_can_no_longer_launch(app: Flask, platform: FakePlatform) -> None:
    app.test_cli_runner().invoke(args=["lti", "platform", "remove", "--issuer", platform.issuer])
    response = app.test_client().get("/lti/login", query_string={"iss": platform.issuer, "login_hint": "x"})
    assert response.status_code == 400 and "not registered" in response.get_data(as_text=True)


def test_contexts_lists_each_lms_course_and_its_course(app: Flask, platform: FakePlatform) -> None:
    listed = app.test_cli_runner().invoke(args=["lti", "contexts"]).output
    assert f"{platform.issuer}  deployment=deployment-1  context=course-1  -> default  (Transformers 101; no roster)" in listed
    app.test_cli_runner().invoke(args=["lti", "platform", "remove", "--issuer", platform.issuer])
    assert "no LMS course mapped yet" in app.test_cli_runner().invoke(args=["lti", "contexts"]).output
