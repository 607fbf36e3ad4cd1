"""The dashboard's parts that need no browser: the secret shown once, errors put beside their
fields, newer and older pages, printer option and pairing code forms, and how values and printer
reasons read."""

from __future__ import annotations

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response

from printcloud.api_gateway.transport.dashboard import flash
from printcloud.api_gateway.transport.dashboard.form_state import FORM_LEVEL, FieldRefused, errors_of, sent
from printcloud.api_gateway.transport.dashboard.paging import Pager, pager_for
from printcloud.api_gateway.transport.dashboard.pairing_form import pairing_code_body
from printcloud.api_gateway.transport.dashboard.printer_options import (
    default_options_from,
    option_choices,
    paper_from,
    shown_value,
)
from printcloud.api_gateway.transport.dashboard.rendering import detail_value, size, state_reason, templates
from printcloud.contracts.errors import ApiError

PATH = "/dashboard/keys/created"
SESSION = "a-session-token-of-forty-three-characters-x"


def _request(path: str, cookie: str = "") -> Request:
    headers = [(b"host", b"dashboard.test")] + ([(b"cookie", f"{flash.COOKIE}={cookie}".encode())] if cookie else [])
    return Request({"type": "http", "method": "GET", "path": path, "headers": headers, "scheme": "https"})


def _kept(payload: dict[str, str]) -> tuple[str, str]:
    response = Response()
    flash.keep(response, _request("/dashboard/keys"), SESSION, PATH, payload)
    header = response.headers["set-cookie"]
    value = header.split(";")[0].split("=", 1)[1]
    assert '"' not in value, "nothing a cookie would need quoted"
    return value, header.lower()


def test_a_flash_is_read_by_its_page_and_session_only_and_forgotten() -> None:
    value, header = _kept({"secret": "svc_test_abc"})
    assert f"path={PATH}" in header and "httponly" in header and "samesite=strict" in header and "secure" in header
    assert "svc_test_abc" not in header, "encoded, so no cookie parser mangles it"
    assert flash.read(_request(PATH, value), SESSION) == {"secret": "svc_test_abc"}
    assert flash.read(_request(PATH, value), "another-session-token-of-forty-three-chars") is None
    assert flash.read(_request("/dashboard/webhooks/created", value), SESSION) is None
    body, _, signature = value.partition(".")
    assert flash.read(_request(PATH, f"{body}x.{signature}"), SESSION) is None
    forgotten = Response()
    flash.forget(forgotten, _request(PATH, value))
    assert (
        'printcloud_flash=""' in forgotten.headers["set-cookie"]
        and "max-age=0" in forgotten.headers["set-cookie"].lower()
    )


def test_a_refusal_goes_beside_the_field_it_names() -> None:
    fields = {"url": "url", "events": "events", "defaultOptions.duplex": "option_duplex"}
    named = ApiError("invalid_request", "Invalid field `events`: List should have at least 1 item.")
    assert errors_of(named, fields) == {"events": named.message}
    nested = ApiError("invalid_request", "Print option `defaultOptions.duplex` must be one of long-edge.")
    assert errors_of(nested, fields) == {"option_duplex": nested.message}
    by_code = ApiError("invalid_url", "The URL resolves to a private address.")
    assert errors_of(by_code, fields, {"invalid_url": "url"}) == {"url": by_code.message}
    other = ApiError("invalid_request", "Something about `nothing` here.")
    assert errors_of(other, fields) == {FORM_LEVEL: other.message}


def test_a_form_is_kept_as_sent_without_its_token() -> None:
    form = FormData([("url", "https://x.test"), ("events", "a"), ("events", "b"), ("csrf_token", "t")])
    assert sent(form, lists=("events", "scopes")) == {"url": "https://x.test", "events": ["a", "b"], "scopes": []}
    state = FieldRefused("url", "Bad.").state(form, lists=("events",))
    assert (state.value("url"), state.chosen("events"), state.error("url")) == ("https://x.test", ["a", "b"], "Bad.")


def test_pages_lead_newer_and_older() -> None:
    ids = ["c", "b", "a"]
    assert pager_for(ids, True, after="", before="") == Pager(newer=None, older="a")
    assert pager_for(ids, False, after="d", before="") == Pager(newer="c", older=None)
    assert pager_for(ids, True, after="", before="z") == Pager(newer="c", older="a")
    assert pager_for(ids, False, after="", before="z") == Pager(newer=None, older="a")
    assert pager_for([], False, after="x", before="") == Pager()
    links = Pager(newer="c", older="a").links("/dashboard/jobs", {"q": "a b", "state": ""})
    assert links == {"newer": "/dashboard/jobs?q=a+b&before=c", "older": "/dashboard/jobs?q=a+b&after=a"}


def test_printer_options_offer_what_the_printer_reports_and_come_back_typed() -> None:
    printer = {
        "capabilities": {"papers": {"A4": [2100, 2970]}, "duplex": False, "dpis": ["300x300"], "nup": [1, 2]},
        "customPapers": [{"name": "Postcard", "width": 1000, "height": 1480}],
    }
    choices = option_choices(printer)
    assert choices["paper"] == [("A4", "A4"), ("Postcard", "Postcard")]
    assert choices["duplex"] == [("one-sided", "one-sided")] and choices["copies"] is None
    form = FormData([("option_paper", "A4"), ("option_color", "false"), ("option_nup", "2"), ("option_bin", "")])
    assert default_options_from(form) == {"paper": "A4", "color": False, "nup": 2}
    try:
        default_options_from(FormData([("option_copies", "two")]))
    except FieldRefused as refused:
        assert refused.field == "option_copies"
    else:
        raise AssertionError("letters are not copies")
    assert paper_from(FormData([("paper_name", " Card "), ("paper_width", "100"), ("paper_height", "148.5")])) == {
        "name": "Card", "width": 1000, "height": 1485,
    }  # fmt: skip
    assert (shown_value({"color": True}, "color"), shown_value({}, "paper")) == ("true", "")


def test_values_read_as_people_read_them() -> None:
    assert (size(812), size(1536), size(3 * 1024 * 1024)) == ("812 bytes", "1.5 KB", "3.0 MB")
    assert state_reason("media-empty-error") == "media empty (error)"
    assert state_reason("toner-low-warning") == "toner low (warning)"
    assert (detail_value(True), detail_value(["read", "print"]), detail_value(None)) == ("yes", "read, print", "none")
    assert detail_value([{"name": "Card", "width": 1000}]) == '[{"name": "Card", "width": 1000}]'


def test_a_printer_shows_its_reasons_when_its_agent_reports_them() -> None:
    macro = templates.get_template("_fleet.html").module.printer_state  # type: ignore[attr-defined]
    printer = {"state": "offline", "enabled": True, "stateReasons": ["none", "media-jam-error", "cover-open-report"]}
    shown = str(macro(printer))
    assert "media jam (error)" in shown and "cover open (report)" in shown and ">none<" not in shown
    assert "reason" not in str(macro({"state": "online", "enabled": False})).replace("not live", "")


def _refused_field(form: FormData) -> str:
    try:
        pairing_code_body(form)
    except FieldRefused as refused:
        return refused.field
    raise AssertionError(f"{form} was accepted")


def test_a_pairing_codes_terms_come_in_hours_or_days_up_to_the_apis_seven_days() -> None:
    form = FormData([("description", "  Shops  "), ("max_uses", " 500 "), ("lifetime", "2"), ("lifetime_unit", "days")])
    assert pairing_code_body(form) == {"maxUses": 500, "expireAfter": 172800, "description": "Shops"}
    longest = FormData([("description", " "), ("max_uses", "1000"), ("lifetime", "168"), ("lifetime_unit", "hours")])
    assert pairing_code_body(longest) == {"maxUses": 1000, "expireAfter": 604800}
    for uses in ("0", "1001", "", "two", "1.5", "-1", "²"):
        assert (
            _refused_field(FormData([("max_uses", uses), ("lifetime", "1"), ("lifetime_unit", "days")])) == "max_uses"
        )
    for lifetime, unit in (("8", "days"), ("169", "hours"), ("0", "hours"), ("", "days"), ("1", "weeks"), ("1", "")):
        form = FormData([("max_uses", "1"), ("lifetime", lifetime), ("lifetime_unit", unit)])
        assert _refused_field(form) == "lifetime", (lifetime, unit)
