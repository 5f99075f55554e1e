"""The catalog as data: every value cites a source, the loader refuses one that does not, and the new
entries' derived sizes agree with arithmetic done here from their config.json and published counts."""

from pathlib import Path

import pytest

from chainc.catalog import Catalog
from chainc.errors import ModelError
from chainc.solver import entry_values

from .conftest import ROOT

CATALOG = Catalog(ROOT / "hardware")
KINDS = ("gpu", "llm")


def _files(kind: str) -> list[Path]:
    return [p for p in (ROOT / "hardware" / f"{kind}s").glob("*.yaml") if p.stem != "fields"]


def _value(kind: str, entry_id: str, field: str) -> float | None:
    """A field in its display unit (141 for 141 GB), None where the entry has none."""
    entry = CATALOG.entry(kind, entry_id)
    v = entry_values(entry)[field]
    return None if v is None else float(v) / float(CATALOG.field(kind, field).factor)


@pytest.mark.parametrize("kind", KINDS)
def test_every_entry_loads_and_every_typed_value_cites_a_named_source(kind):
    files = _files(kind)
    assert sorted(CATALOG.ids(kind)) == sorted(p.stem for p in files) and files
    for entry in CATALOG.entries(kind):
        assert entry.typed and entry.sources
        for name in entry.typed:
            key, _ = entry.cited[name]
            assert key in entry.sources, (entry.id, name)
            assert entry.sources[key].strip(), (entry.id, key)
        for name in entry.fields:  # typed, derived, null with a reason, or an optional field it leaves out
            spec = CATALOG.field(kind, name)
            assert name in entry.typed or name in entry.derived or name in entry.cited or spec.optional, (entry.id, name)


def test_every_price_is_marked_indicative_with_its_date():
    assert "INDICATIVE" in CATALOG.field("gpu", "price_per_hour").description
    for entry in CATALOG.entries("gpu"):
        _, note = entry.cited["price_per_hour"]
        if "price_per_hour" in entry.typed:
            assert note.startswith("INDICATIVE") and any(str(year) in note for year in range(2024, 2031)), entry.id


def _load(tmp_path, text: str):
    folder = tmp_path / "hardware" / "gpus"
    folder.mkdir(parents=True)
    for name in ("fields.yaml",):
        (folder / name).write_text((ROOT / "hardware" / "gpus" / name).read_text())
    (folder / "mine.yaml").write_text(text)
    return Catalog([(tmp_path / "hardware", "project"), (ROOT / "hardware", "bundled")]).entry("gpu", "mine")


H200 = (ROOT / "hardware" / "gpus" / "h200.yaml").read_text().replace("id: h200", "id: mine")


def test_a_value_without_a_source_is_a_located_error(tmp_path):
    text = H200.replace("memory_bandwidth: {value: 4.8 TB/s, source: datasheet}", "memory_bandwidth: 4.8 TB/s")
    with pytest.raises(ModelError) as e:
        _load(tmp_path, text)
    line = next(i for i, row in enumerate(text.splitlines(), 1) if row.startswith("  memory_bandwidth:"))
    assert "cites no source" in e.value.message and e.value.loc.line == line
    assert "source: <key>" in e.value.hint and "datasheet" in e.value.hint


def test_a_source_that_sources_does_not_name_is_a_located_error_with_a_suggestion(tmp_path):
    text = H200.replace("memory_bandwidth: {value: 4.8 TB/s, source: datasheet}", "memory_bandwidth: {value: 4.8 TB/s, source: datashet}")
    with pytest.raises(ModelError) as e:
        _load(tmp_path, text)
    assert "'datashet'" in e.value.message and e.value.hint == "did you mean datasheet?"
    assert e.value.loc.line == next(i for i, row in enumerate(text.splitlines(), 1) if "datashet" in row)


def test_a_source_no_value_cites_is_an_error(tmp_path):
    text = H200.replace("sources:\n", "sources:\n  unused: some document\n")
    with pytest.raises(ModelError, match="'unused' is cited by no value"):
        _load(tmp_path, text)


def test_an_optional_field_may_be_left_out_and_reads_as_absent():
    assert CATALOG.field("llm", "kv_lora_rank").optional and not CATALOG.field("llm", "layers").optional
    assert _value("llm", "llama-3.1-8b", "kv_lora_rank") is None and _value("llm", "deepseek-v3", "kv_lora_rank") == 512


# config.json of each new LLM, the keys the entries read (huggingface.co/<repo>/blob/main/config.json)
CONFIGS = {
    "qwen3-32b": dict(num_hidden_layers=64, hidden_size=5120, num_attention_heads=64, num_key_value_heads=8, head_dim=128, intermediate_size=25600, vocab_size=151936),
    "qwen3-30b-a3b": dict(
        num_hidden_layers=48, hidden_size=2048, num_attention_heads=32, num_key_value_heads=4, head_dim=128, moe_intermediate_size=768, vocab_size=151936, num_experts=128, num_experts_per_tok=8
    ),
    "deepseek-v3": dict(
        num_hidden_layers=61, hidden_size=7168, num_attention_heads=128, kv_lora_rank=512, qk_rope_head_dim=64, qk_nope_head_dim=128, v_head_dim=128,
        moe_intermediate_size=2048, first_k_dense_replace=3, n_routed_experts=256, num_experts_per_tok=8, n_shared_experts=1, vocab_size=129280,
    ),
}  # fmt: skip


def test_deepseek_v3_kv_cache_is_mla_compressed_per_layer():
    c = CONFIGS["deepseek-v3"]
    # one compressed KV vector and one RoPE key per layer and token, BF16: 61 x (512 + 64) x 2
    assert _value("llm", "deepseek-v3", "kv_bytes_per_token") == c["num_hidden_layers"] * (c["kv_lora_rank"] + c["qk_rope_head_dim"]) * 2 == 70272
    assert "kv_bytes_per_token" in CATALOG.entry("llm", "deepseek-v3").derived  # from the equation, not typed
    # DeepSeek publishes 37B activated (36.6B without the 0.9B input embedding): the routed experts a token skips
    skipped = (c["n_routed_experts"] - c["num_experts_per_tok"]) * (c["num_hidden_layers"] - c["first_k_dense_replace"]) * 3 * c["hidden_size"] * c["moe_intermediate_size"]
    active = _value("llm", "deepseek-v3", "active_params")
    assert active == 671e9 - skipped and round(active / 1e9) in (37, 38)
    assert abs(active - c["vocab_size"] * c["hidden_size"] - 36.6e9) < 0.05e9


def _qwen3_attention(c) -> int:
    h, d = c["hidden_size"], c["head_dim"]
    return h * c["num_attention_heads"] * d * 2 + h * c["num_key_value_heads"] * d * 2 + 2 * d  # Q, O, K, V, q_norm, k_norm


def test_qwen3_dense_counts_match_the_model_card():
    c = CONFIGS["qwen3-32b"]
    per_layer = _qwen3_attention(c) + 3 * c["hidden_size"] * c["intermediate_size"] + 2 * c["hidden_size"]
    embeddings = 2 * c["vocab_size"] * c["hidden_size"]  # untied
    params = _value("llm", "qwen3-32b", "params")
    assert params == embeddings + c["num_hidden_layers"] * per_layer + c["hidden_size"]
    assert round(params / 1e9, 1) == 32.8 and round((params - embeddings) / 1e9, 1) == 31.2  # the card's figures
    assert _value("llm", "qwen3-32b", "kv_bytes_per_token") == 2 * c["num_hidden_layers"] * c["num_key_value_heads"] * c["head_dim"] * 2
    assert _value("llm", "qwen3-32b", "attention_flops_per_pair") == 4 * c["num_hidden_layers"] * c["num_attention_heads"] * c["head_dim"]


def test_qwen3_moe_counts_match_the_model_card():
    c = CONFIGS["qwen3-30b-a3b"]
    expert = 3 * c["hidden_size"] * c["moe_intermediate_size"]
    per_layer = _qwen3_attention(c) + c["num_experts"] * expert + c["hidden_size"] * c["num_experts"] + 2 * c["hidden_size"]
    params = _value("llm", "qwen3-30b-a3b", "params")
    assert params == 2 * c["vocab_size"] * c["hidden_size"] + c["num_hidden_layers"] * per_layer + c["hidden_size"]
    active = _value("llm", "qwen3-30b-a3b", "active_params")
    assert active == params - (c["num_experts"] - c["num_experts_per_tok"]) * c["num_hidden_layers"] * expert
    assert round(params / 1e9, 1) == 30.5 and 3.3e9 <= active < 3.4e9  # the card: 30.5B total, 3.3B activated (cut, not rounded)


@pytest.mark.parametrize("entry_id", sorted(CONFIGS))
def test_the_typed_architecture_is_config_json(entry_id):
    c = CONFIGS[entry_id]
    field_of = {"num_hidden_layers": "layers", "hidden_size": "hidden", "num_attention_heads": "heads", "vocab_size": "vocab", "kv_lora_rank": "kv_lora_rank", "qk_rope_head_dim": "qk_rope_head_dim"}
    field_of |= {"moe_intermediate_size": "intermediate", "num_experts": "experts", "n_routed_experts": "experts", "num_experts_per_tok": "experts_per_token", "n_shared_experts": "shared_experts"}
    field_of |= {"num_key_value_heads": "kv_heads", "head_dim": "head_dim", "first_k_dense_replace": "dense_layers"}
    if entry_id == "qwen3-32b":
        field_of["intermediate_size"] = "intermediate"
    for key, value in c.items():
        if key in field_of:
            assert _value("llm", entry_id, field_of[key]) == value, (entry_id, key)
