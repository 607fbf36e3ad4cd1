from printcloud.agent_gateway.domain.file_tokens import FileGrant, mint_token, verify_token


def test_a_token_grants_one_job_to_one_computer_until_it_expires() -> None:
    token = mint_token("s", "job", "computer", 1000)
    assert verify_token("s", "job", token, now=999) == FileGrant("job", "computer")
    assert verify_token("s", "other-job", token, now=999) is None
    assert verify_token("other-secret", "job", token, now=999) is None
    assert verify_token("s", "job", token, now=1001) is None


def test_a_tampered_token_is_refused() -> None:
    expiry, computer, signature = mint_token("s", "job", "computer", 1000).split(".")
    assert verify_token("s", "job", f"2000.{computer}.{signature}", now=0) is None
    assert verify_token("s", "job", f"{expiry}.someone-else.{signature}", now=0) is None
    assert verify_token("s", "job", "not-a-token", now=0) is None
