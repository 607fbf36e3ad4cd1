"""The previous release is found by its tag, by the commit releases.toml records where a clone has
no tags, and never by a tag that moved away from that commit."""

from __future__ import annotations

import pytest

from tests.upgrade.releases import ROOT, Release, commit_of, current_version, git, previous_release, recorded_releases


def test_every_recorded_release_has_its_changelog_section_and_a_full_commit() -> None:
    headings = (ROOT / "CHANGELOG.md").read_text()
    for release in recorded_releases():
        assert len(release.commit) == 40 and int(release.commit, 16) >= 0, release
        assert f"\n## {release.version} " in headings, f"CHANGELOG.md has no section for {release.version}"


def test_the_previous_release_comes_before_the_tree() -> None:
    previous = previous_release()
    assert previous.version != current_version()
    assert git("show", f"{commit_of(previous)}:VERSION").strip() == previous.version


def test_without_its_tag_a_release_is_found_by_its_recorded_commit() -> None:
    recorded = previous_release()
    untagged = Release("0.0.0-never-tagged", recorded.commit)
    assert commit_of(untagged) == recorded.commit


def test_a_tag_that_moved_is_refused() -> None:
    recorded = previous_release()
    moved = Release(recorded.version, "0" * 40)
    tagged = bool(git("tag", "--list", recorded.tag).strip())
    # A clone without tags has nothing to compare: the record alone decides, and names no commit here.
    with pytest.raises(LookupError, match=f"tag v{recorded.version} is" if tagged else "fetch the tags"):
        commit_of(moved)


def test_a_release_neither_tagged_nor_in_the_history_says_what_to_fetch() -> None:
    with pytest.raises(LookupError, match="fetch the tags or the history"):
        commit_of(Release("0.0.0-never-tagged", "0" * 40))
