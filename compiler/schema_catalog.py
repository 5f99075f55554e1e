"""The catalog's files as JSON Schema: a GPU's or LLM's entry, and the fields file of each kind (hardware/)."""

from __future__ import annotations

from .schema import _NAME, _SLUG, _text

CATALOG_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "chainc catalog entry",
    "type": "object",
    "additionalProperties": False,
    "required": ["id", "title", "values"],
    "properties": {
        "id": _SLUG,
        "title": _text,
        "about": _text,
        "sources": {
            "type": "object",
            "minProperties": 1,
            "propertyNames": _NAME,
            "additionalProperties": _text,
            "description": "Short keys, each naming one document (title, and its address where it has one) that values cite.",
        },
        "values": {
            "type": "object",
            "propertyNames": _NAME,
            "additionalProperties": {
                "oneOf": [
                    # a bare number or quantity passes here so the loader can say which source it lacks
                    {"type": ["null", "number", "string"], "description": "null: the entry has no such value (an A100 has no FP8 tensor cores)"},
                    {
                        "type": "object",
                        "additionalProperties": False,
                        "required": ["value", "source"],
                        "properties": {
                            "value": {"type": ["number", "string", "null"]},
                            "source": {"type": "string", "description": "a key of sources:"},
                            "note": _text,
                        },
                    },
                ]
            },
        },
        "derived": {"type": "array", "items": _text},
    },
}

FIELDS_SCHEMA = {
    "type": "object",
    "additionalProperties": False,
    "required": ["kind", "fields"],
    "properties": {
        "kind": {"enum": ["gpu", "llm"]},
        "about": _text,
        "fields": {
            "type": "object",
            "propertyNames": _NAME,
            "additionalProperties": {
                "type": "object",
                "additionalProperties": False,
                "required": ["unit", "description"],
                "properties": {"unit": {"type": ["string", "number"]}, "description": _text, "symbol": _text, "optional": {"type": "boolean"}},
            },
        },
    },
}
