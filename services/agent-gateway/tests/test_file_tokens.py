from printcloud.agent_gateway.domain.file_tokens import ComputerScope, FileGrant, mint_token, verify_token

COMPUTER = ComputerScope("computer", "org", "test")


def test_a_token_grants_one_job_to_one_computer_until_it_expires() -> None:
    token = mint_token("s", "job", COMPUTER, 1000)
    assert verify_token("s", "job", token, now=999) == FileGrant("job", COMPUTER)
    assert verify_token("s", "other-job", token, now=999) is None
    assert verify_token("other-secret", "job", token, now=999) is None
    assert verify_token("s", "job", token, now=1001) is None


def test_a_tampered_token_is_refused() -> None:
    expiry, computer, organization, mode, signature = mint_token("s", "job", COMPUTER, 1000).split(".")
    assert verify_token("s", "job", f"2000.{computer}.{organization}.{mode}.{signature}", now=0) is None
    assert verify_token("s", "job", f"{expiry}.someone-else.{organization}.{mode}.{signature}", now=0) is None
    assert verify_token("s", "job", f"{expiry}.{computer}.other-org.{mode}.{signature}", now=0) is None
    assert verify_token("s", "job", f"{expiry}.{computer}.{organization}.live.{signature}", now=0) is None
    assert verify_token("s", "job", "not-a-token", now=0) is None


def test_an_expiry_longer_than_any_of_ours_is_refused_before_it_is_read() -> None:
    signature = mint_token("s", "job", COMPUTER, 1000).rsplit(".", 1)[1]
    assert verify_token("s", "job", f"{'9' * 5000}.computer.org.test.{signature}", now=0) is None
    assert verify_token("s", "job", f"¹²³.computer.org.test.{signature}", now=0) is None
