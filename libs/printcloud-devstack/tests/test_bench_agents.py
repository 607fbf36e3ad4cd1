from printcloud.devstack.bench.agents import back_by_share


def test_the_storm_reports_when_each_share_of_the_fleet_was_back() -> None:
    welcomed = [float(second) for second in range(100, 0, -1)]  # one agent back each second, in any order
    assert back_by_share(welcomed, 100) == {0.5: 50.0, 0.9: 90.0, 0.99: 99.0}


def test_a_share_of_the_fleet_never_back_is_left_out() -> None:
    assert back_by_share([3.0, 1.0, 2.0], 10) == {}
    assert back_by_share([float(n) for n in range(1, 96)], 100) == {0.5: 50.0, 0.9: 90.0}
