"""pattern_segments: namespace-tree prefixes."""

import pytest

from rdbscope.patterns import pattern_segments


@pytest.mark.parametrize(
    "pattern, expected",
    [
        ("user:{id}:profile", ["user", "user:{id}", "user:{id}:profile"]),
        ("user", ["user"]),
        ("{id}", ["{id}"]),
        ("", [""]),
        ("{user:{id}}:profile", ["{user:{id}}", "{user:{id}}:profile"]),
        ("{user:{id}}", ["{user:{id}}"]),
        ("feed:{{*}}:timeline", ["feed", "feed:{{*}}", "feed:{{*}}:timeline"]),
        ("api/v1/users/{id}", ["api", "api/v1", "api/v1/users", "api/v1/users/{id}"]),
        ("user.{id}.settings", ["user", "user.{id}", "user.{id}.settings"]),
        ("video_info#olympic#{date}#{id}",
         ["video_info", "video_info#olympic", "video_info#olympic#{date}", "video_info#olympic#{date}#{id}"]),
        ("cache:product:SKU-{*}", ["cache", "cache:product", "cache:product:SKU-{*}"]),
        ("order-{id}", ["order", "order-{id}"]),
        ("tenant|{*}|quota", ["tenant", "tenant|{*}", "tenant|{*}|quota"]),
        ("user_{id}_profile", ["user", "user_{id}", "user_{id}_profile"]),
    ],
)
def test_segments(pattern, expected):
    assert pattern_segments(pattern) == expected


def test_segments_of_inferred_patterns_end_with_the_pattern():
    from rdbscope.patterns import infer_patterns

    keys = [b"{user:1000}:cart", b"a.b-c_d", b"x:y/z", b"\xff:1"]
    for pattern in infer_patterns(keys).to_pylist():
        segments = pattern_segments(pattern)
        assert segments[-1] == pattern
        assert all(pattern.startswith(s) for s in segments)
