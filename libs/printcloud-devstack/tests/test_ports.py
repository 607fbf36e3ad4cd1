from printcloud.devstack.ports import free_ports


def test_ports_chosen_together_are_distinct_and_avoid_the_excluded() -> None:
    taken = set(free_ports(20))
    chosen = free_ports(200, exclude=taken)

    assert len(set(chosen)) == 200
    assert not taken & set(chosen)
