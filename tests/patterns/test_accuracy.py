"""Grouping accuracy on synthetic keyspaces with known patterns must be >= 0.98."""

import random

import pytest
from keyspace import FAMILIES, generate
from scoring import grouping_accuracy, misgrouped

from rdbscope.patterns import infer_patterns

BAR = 0.98


def test_the_generator_has_at_least_thirty_families():
    assert len({pattern for pattern, _, _ in FAMILIES}) >= 30


def test_scorer_counts_a_key_right_only_when_its_whole_group_matches():
    truth = ["a", "a", "b", "b", "c"]
    assert grouping_accuracy(truth, ["x", "x", "y", "y", "z"]) == 1.0
    # b split in two: both b keys are wrong; merging c into a: a and c keys are wrong.
    assert grouping_accuracy(truth, ["x", "x", "y", "w", "z"]) == 3 / 5
    assert grouping_accuracy(truth, ["x", "x", "y", "y", "x"]) == 2 / 5


@pytest.mark.parametrize("seed, n_keys", [(1, 20_000), (2, 50_000), pytest.param(3, 200_000, marks=pytest.mark.slow)])
def test_grouping_accuracy(seed, n_keys):
    keys, truth = generate(seed, n_keys)
    inferred = infer_patterns(keys).to_pylist()
    score = grouping_accuracy(truth, inferred)
    assert score >= BAR, misgrouped(truth, inferred)


def test_most_patterns_are_spelled_as_expected():
    keys, truth = generate(4, 30_000)
    inferred = infer_patterns(keys).to_pylist()
    same = sum(t == p for t, p in zip(truth, inferred, strict=True)) / len(keys)
    assert same >= 0.99


def test_row_order_does_not_change_the_patterns():
    keys, _ = generate(5, 20_000)
    shuffled = keys[:]
    random.Random(0).shuffle(shuffled)
    by_key = dict(zip(keys, infer_patterns(keys).to_pylist(), strict=True))
    assert dict(zip(shuffled, infer_patterns(shuffled).to_pylist(), strict=True)) == by_key


def test_same_input_same_output():
    keys, _ = generate(6, 5_000)
    first = infer_patterns(keys)
    second = infer_patterns(keys)
    assert first.equals(second)
