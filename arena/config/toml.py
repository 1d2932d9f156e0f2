"""Configs written as TOML text: what a run directory keeps as config.toml, and the configs arena writes itself
(a league's rounds)."""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any

from arena.config.models import ConfigError


def toml_text(data: Mapping[str, Any]) -> str:
    """A config dict as TOML text (what the run directory keeps as config.toml): top-level values first,
    then tables such as [run], then arrays of tables such as [[games]] and [[bots]]; deeper tables inline."""
    head, tables = [], []
    for key, value in data.items():
        if isinstance(value, Mapping):
            tables.append(f"\n[{_key(key)}]\n{_pairs(value)}")
        elif isinstance(value, list) and value and all(isinstance(v, Mapping) for v in value):
            tables.extend(f"\n[[{_key(key)}]]\n{_pairs(entry)}" for entry in value)
        else:
            head.append(f"{_key(key)} = {_value(value)}\n")
    return "".join(head) + "".join(tables)


def _pairs(table: Mapping[str, Any]) -> str:
    return "".join(f"{_key(key)} = {_value(value)}\n" for key, value in table.items())


def _key(key: str) -> str:
    return key if key.replace("_", "").replace("-", "").isalnum() else json.dumps(key)


def _value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)  # a JSON string is a TOML basic string
    if isinstance(value, Mapping):
        return "{" + ", ".join(f"{_key(k)} = {_value(v)}" for k, v in value.items()) + "}"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_value(v) for v in value) + "]"
    raise ConfigError(f"a config value must be a string, number, boolean, list or table, not {value!r}")
