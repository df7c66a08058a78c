"""pbem.store.json_text: orjson writes and reads pbem's JSON as the standard library's json module did."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from sqlalchemy import text
from sqlmodel import select

from pbem.store import json_text
from pbem.store.db import Database
from pbem.store.models import Account, Game

# What pbem keeps in its JSON columns: strings (any Unicode), whole numbers in 64 bits, floats, booleans and None,
# in lists and in dicts whose keys are strings or whole numbers (json turns those into strings).
_SCALARS = (st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.text()
            | st.floats(allow_nan=False, allow_infinity=False))
_VALUES = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=4)
                       | st.dictionaries(st.text(max_size=8) | st.integers(-99, 99), inner, max_size=4), max_leaves=20)


@given(_VALUES)
def test_a_value_reads_back_as_the_json_module_reads_it(value: Any) -> None:
    assert json_text.loads(json_text.dumps(value)) == json.loads(json.dumps(value))
    assert json.loads(json_text.dumps(value)) == json.loads(json.dumps(value))  # and it is JSON the module reads


@given(st.dictionaries(st.text(max_size=6), _SCALARS, max_size=6))
def test_canonical_bytes_are_equal_exactly_when_the_values_are(value: dict[str, Any]) -> None:
    reordered = dict(reversed(list(value.items())))
    assert json_text.canonical(reordered) == json_text.canonical(value)
    changed = {**value, "extra key": 1}
    assert json_text.canonical(changed) != json_text.canonical(value)


@pytest.mark.parametrize("examples", [{1: "a", 2: "b"}, {"3": [1, {4: None}]}])
def test_whole_number_keys_become_strings(examples: dict[Any, Any]) -> None:
    assert json_text.loads(json_text.dumps(examples)) == json.loads(json.dumps(examples))


@pytest.mark.parametrize("damaged", ["", "{", "{'single': 'quotes'}", "[1,]", "NaN-ish"])
def test_damaged_text_raises_a_value_error(damaged: str) -> None:
    with pytest.raises(ValueError):
        json_text.loads(damaged)


def test_the_json_columns_store_what_the_json_module_reads(db: Database) -> None:
    state = {"board": [1, 2, 3], "names": "Zoë \"the\" player", "counts": {5: 1}, "nothing": None}
    with db.transaction() as session:
        white, black = Account(handle="white", email="w@example.org"), Account(handle="black", email="b@example.org")
        session.add_all([white, black])
        session.flush()
        session.add(Game(variant="outer-space", white_id=white.id or 0, black_id=black.id or 0, state=state))
    with db.read() as session:
        stored = session.connection().execute(text("SELECT state FROM game")).scalar_one()
        loaded = session.exec(select(Game)).one().state
    as_text = stored if isinstance(stored, str) else json.dumps(stored)  # PostgreSQL's driver hands it parsed
    assert json.loads(as_text) == json.loads(json.dumps(state))
    assert loaded == json.loads(json.dumps(state))
