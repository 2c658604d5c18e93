"""Checkpoints in Hugging Face's layout in and out of the book's models: config.json checked
before anything is allocated, safetensors only (no pickle is ever executed). Never imports the
hub: hub.py downloads a repo's files to a folder, and this module reads folders.

    model = load_model("a folder")             # the one entry point: config.json's model_type says
                                               # which: gpt2 (GPTModel), qwen3, llama, gemma3_text
    model = load_gpt2("assets/model")          # GPT-2's layout only
    save_gpt2(model, "out/")                   # GPT2LMHeadModel opens it too
    hf_layout.save_hf(model, "out/")           # Qwen3ForCausalLM (and the others) open it too

A folder's weights are model.safetensors, or shards listed in model.safetensors.index.json; bf16,
fp16 or fp32 on disk, the model built in float32 unless asked otherwise.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from pathlib import Path
from types import SimpleNamespace

import torch

from attention.errors import ConfigError, check_whole_numbers
from attention.i18n import N_, tr
from attention.model.gpt import GPTModel
from attention.settings import current

# The most memory a config.json may ask for, in MiB as GPTModel builds it: GPT-2 medium (1,646)
# fits; GPT-2 large (3,342) needs this raised, on a machine that has the memory.
MAX_MODEL_MB = current().max_model_mb
# The sizes in gpt.CONFIG_KEYS, as config.json names them.
HF_NAMES = {
    "vocab_size": "vocab_size",
    "context_length": "n_positions",
    "emb_dim": "n_embd",
    "n_heads": "n_head",
    "n_layers": "n_layer",
}


def parameter_count(cfg: dict) -> int:
    """The book's GPTModel's parameters for `cfg`, from the config alone (nothing allocated):
    token and position embeddings, and per block 4 d x d attention and 8 d x d feed-forward
    weights with their biases and two LayerNorms; the output layer counted as tied."""
    d, layers = cfg["emb_dim"], cfg["n_layers"]
    return (cfg["vocab_size"] + cfg["context_length"]) * d + layers * (12 * d * d + 13 * d) + 2 * d


def model_bytes(cfg: dict) -> int:
    """What GPTModel(cfg) allocates, in float32: its parameters, its own output layer (tied to the
    embedding only when GPT-2's weights are loaded) and each block's (context x context) mask.
    A model.safetensors holds at most the same (GPT-2's carry the masks too)."""
    extra = cfg["vocab_size"] * cfg["emb_dim"] + cfg["n_layers"] * cfg["context_length"] ** 2
    return 4 * (parameter_count(cfg) + extra)


def config_from_hf(hf: dict) -> dict:
    """config.json of a GPT-2 checkpoint -> the book's config; ConfigError for one that is not a
    GPT-2 config, or whose model would take more than MAX_MODEL_MB: checked before anything is
    allocated, since a config.json from anywhere could ask for terabytes."""
    hf = hf if isinstance(hf, dict) else {}
    sizes = {"n_positions": hf.get("n_ctx", 1024)} | {k: hf[k] for k in HF_NAMES.values() if k in hf}
    if missing := [k for k in HF_NAMES.values() if k not in sizes]:
        keys = ", ".join(missing)
        raise ConfigError(tr("This is not a GPT-2 config.json: it has no {keys}.", keys=keys), "source")
    try:
        check_whole_numbers(SimpleNamespace(**sizes), {k: (1, 2**40) for k in HF_NAMES.values()})
    except ConfigError as error:
        # TRANSLATORS: {why} is what in the file is wrong, a short phrase
        why = str(error).rstrip(".")  # the message adds its own full stop
        raise ConfigError(tr("This is not a GPT-2 config.json: {why}.", why=why), "source") from error
    if sizes["n_embd"] % sizes["n_head"]:
        raise ConfigError(
            tr(
                "config.json: n_embd={n_embd} is not a multiple of n_head={n_head}.",
                n_embd=sizes["n_embd"],
                n_head=sizes["n_head"],
            ),
            "source",
        )
    cfg = {key: sizes[name] for key, name in HF_NAMES.items()} | {"drop_rate": 0.0, "qkv_bias": True}
    if (mb := model_bytes(cfg) / 2**20) > MAX_MODEL_MB:
        raise ConfigError(
            tr(
                "This model needs {mb:,.0f} MB of memory (float32, as the book's GPTModel builds it); this "
                "server opens models up to {most:,} MB (GPT-2 medium needs {medium:,} MB). "
                "ATTENTION_MAX_MODEL_MB raises the limit.",
                mb=mb,
                most=MAX_MODEL_MB,
                medium=1646,
            ),
            "source",
        )
    return cfg


def read_config(path: str | Path) -> dict:
    """A config.json file -> the book's config (config_from_hf's checks); ConfigError if not JSON."""
    try:
        hf = json.loads(Path(path).read_text())
    except (ValueError, OSError) as error:
        # TRANSLATORS: {why} is the reading's error, a short phrase
        said = tr("{path} is not a readable config.json ({why}).", path=path, why=error)
        raise ConfigError(said, "source") from error
    return config_from_hf(hf)


def hf_config(cfg: dict, tied: bool, **extra) -> dict:
    """The book's config -> a config.json that transformers' GPT2LMHeadModel opens."""
    return {
        "model_type": "gpt2",
        "architectures": ["GPT2LMHeadModel"],
        **{name: cfg[key] for key, name in HF_NAMES.items()},
        "n_ctx": cfg["context_length"],
        "n_inner": None,
        "activation_function": "gelu_new",
        "layer_norm_epsilon": 1e-5,
        "resid_pdrop": 0.0,
        "embd_pdrop": 0.0,
        "attn_pdrop": 0.0,
        "tie_word_embeddings": tied,
        "bos_token_id": None,
        "eos_token_id": None,
        **extra,
    }


def _blocks(cfg: dict):
    for b in range(cfg["n_layers"]):
        yield b, f"h.{b}."


@torch.no_grad()
def load_state(model: GPTModel, weights: Mapping[str, torch.Tensor]) -> GPTModel:
    """Assign a GPT-2 state dict (with or without the "transformer." prefix) to the book's model:
    the combined c_attn split into W_query, W_key, W_value; Conv1D weights, stored [in, out],
    transposed for nn.Linear; lm_head tied to wte when absent (one shared tensor, as in GPT-2);
    the attn.bias mask buffers skipped. Every assignment checks its shape. Tensors are read one at
    a time, so `weights` may be a lazy mapping over a file (load_gpt2)."""
    keys = {k.removeprefix("transformer."): k for k in weights}
    d = model.cfg["emb_dim"]

    def put(param: torch.Tensor, value: torch.Tensor, name: str) -> None:
        if param.shape != value.shape:
            raise ConfigError(
                tr(
                    "{name}: the checkpoint has shape {found}, the model {wanted}",
                    name=name,
                    found=tuple(value.shape),
                    wanted=tuple(param.shape),
                )
            )
        param.copy_(value)

    def need(key: str) -> torch.Tensor:
        if key not in keys:
            raise ConfigError(
                tr("The checkpoint has no {key}: not a GPT-2 checkpoint?", key=repr(key)), "source"
            )
        return weights[keys[key]].float()

    put(model.tok_emb.weight, need("wte.weight"), "wte")
    put(model.pos_emb.weight, need("wpe.weight"), "wpe")
    for b, h in _blocks(model.cfg):
        block = model.trf_blocks[b]
        qkv_w, qkv_b = need(h + "attn.c_attn.weight"), need(h + "attn.c_attn.bias")  # (d, 3d), (3d,)
        for i, layer in enumerate((block.att.W_query, block.att.W_key, block.att.W_value)):
            put(layer.weight, qkv_w[:, i * d : (i + 1) * d].T, h + "attn.c_attn")
            if layer.bias is not None:
                put(layer.bias, qkv_b[i * d : (i + 1) * d], h + "attn.c_attn.bias")
        put(block.att.out_proj.weight, need(h + "attn.c_proj.weight").T, h + "attn.c_proj")
        put(block.att.out_proj.bias, need(h + "attn.c_proj.bias"), h + "attn.c_proj.bias")
        put(block.ff.layers[0].weight, need(h + "mlp.c_fc.weight").T, h + "mlp.c_fc")
        put(block.ff.layers[0].bias, need(h + "mlp.c_fc.bias"), h + "mlp.c_fc.bias")
        put(block.ff.layers[2].weight, need(h + "mlp.c_proj.weight").T, h + "mlp.c_proj")
        put(block.ff.layers[2].bias, need(h + "mlp.c_proj.bias"), h + "mlp.c_proj.bias")
        for norm, name in ((block.norm1, "ln_1"), (block.norm2, "ln_2")):
            put(norm.scale, need(f"{h}{name}.weight"), h + name)
            put(norm.shift, need(f"{h}{name}.bias"), h + name)
    put(model.final_norm.scale, need("ln_f.weight"), "ln_f")
    put(model.final_norm.shift, need("ln_f.bias"), "ln_f")
    if "lm_head.weight" in keys:  # (not `in weights`: Mapping's `in` would read the tensor)
        put(model.out_head.weight, weights["lm_head.weight"].float(), "lm_head")
    else:  # tied: out_head shares tok_emb's tensor instead of a copy (GPT-2 small: 147 MiB less)
        model.out_head.weight = model.tok_emb.weight
    return model


class _Tensors(Mapping):
    """A safetensors file, or the shards an index lists (model.safetensors.index.json's weight_map:
    name -> file), as a read-only mapping; each tensor is read when asked for, by a handle of its
    own: an open handle's memory map counts in the process's RSS as it is read, so one handle for
    the whole load peaked at the file's size over the model's (GPT-2 small: +475 MB)."""

    def __init__(self, path: str, shards: Mapping[str, str] | None = None):
        from safetensors import safe_open

        self.open = lambda file=path: safe_open(file, framework="pt")
        if shards is None:
            with self.open() as handle:
                self.files = dict.fromkeys(handle.keys(), path)
        else:
            self.files = {name: str(Path(path) / file) for name, file in shards.items()}
        self.names = list(self.files)

    def __getitem__(self, key: str) -> torch.Tensor:
        if key not in self.files:
            raise KeyError(key)
        with self.open(self.files[key]) as handle:
            return handle.get_tensor(key)

    def __iter__(self):
        return iter(self.names)

    def __len__(self) -> int:
        return len(self.names)


def state_of(model: GPTModel) -> dict[str, torch.Tensor]:
    """The model's weights in GPT-2's layout (inverse of load_state); lm_head only when untied."""
    out = {"transformer.wte.weight": model.tok_emb.weight, "transformer.wpe.weight": model.pos_emb.weight}
    for b, h in _blocks(model.cfg):
        block, h = model.trf_blocks[b], "transformer." + h
        att = block.att
        out[h + "attn.c_attn.weight"] = torch.cat(
            [att.W_query.weight, att.W_key.weight, att.W_value.weight]
        ).T
        biases = [
            layer.bias if layer.bias is not None else torch.zeros(model.cfg["emb_dim"])
            for layer in (att.W_query, att.W_key, att.W_value)
        ]
        out[h + "attn.c_attn.bias"] = torch.cat(biases)  # GPT-2 always has one: zeros for qkv_bias=False
        out[h + "attn.c_proj.weight"], out[h + "attn.c_proj.bias"] = att.out_proj.weight.T, att.out_proj.bias
        out[h + "mlp.c_fc.weight"], out[h + "mlp.c_fc.bias"] = (
            block.ff.layers[0].weight.T,
            block.ff.layers[0].bias,
        )
        out[h + "mlp.c_proj.weight"], out[h + "mlp.c_proj.bias"] = (
            block.ff.layers[2].weight.T,
            block.ff.layers[2].bias,
        )
        for norm, name in ((block.norm1, "ln_1"), (block.norm2, "ln_2")):
            out[f"{h}{name}.weight"], out[f"{h}{name}.bias"] = norm.scale, norm.shift
    out["transformer.ln_f.weight"], out["transformer.ln_f.bias"] = (
        model.final_norm.scale,
        model.final_norm.shift,
    )
    if model.out_head.weight is not model.tok_emb.weight:  # tied: one tensor (load_state)
        out["lm_head.weight"] = model.out_head.weight
    return {k: v.detach().contiguous().clone() for k, v in out.items()}


def save_gpt2(
    model: GPTModel, folder: str | Path, dtype: torch.dtype = torch.float32, **config_extra
) -> Path:
    """Write config.json + model.safetensors in GPT-2's layout: load_gpt2, the "Inside a model"
    page and transformers' GPT2LMHeadModel all open the folder."""
    from safetensors.torch import save_file

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    state = state_of(model)
    tied = "lm_head.weight" not in state
    save_file(
        {k: v.to(dtype) for k, v in state.items()},
        str(folder / "model.safetensors"),
        metadata={"format": "pt"},
    )
    # config.json last, and whole (renamed into place): a folder that has one is complete, so a
    # page listing saved runs never opens a half-written model
    part = folder / "config.json.part"
    part.write_text(json.dumps(hf_config(model.cfg, tied, **config_extra), indent=2) + "\n")
    os.replace(part, folder / "config.json")
    return folder


def load_gpt2(source: str | Path) -> GPTModel:
    """A GPT-2 checkpoint as the book's GPTModel, in eval mode. `source`: a folder (config.json +
    model.safetensors) or a .safetensors file with its config.json beside it; a hub repo is
    downloaded to a folder first (hub.download). Weights are read with safetensors: no pickle is
    ever executed."""
    path = Path(source)
    if not path.exists():
        raise ConfigError(
            tr("{path} does not exist: give a folder or a .safetensors file.", path=repr(str(source)[:200])),
            "source",
        )
    weights_file = path if path.is_file() else path / "model.safetensors"
    config_file = (path.parent if path.is_file() else path) / "config.json"
    if weights_file.suffix != ".safetensors" or not weights_file.exists() or not config_file.exists():
        raise ConfigError(
            tr(
                "{path} is not a GPT-2 checkpoint: it needs config.json and model.safetensors (weights saved "
                "with safe_serialization; .bin pickles are not opened).",
                path=repr(str(path)[:200]),
            ),
            "source",
        )
    return load_state(GPTModel(read_config(config_file)), _Tensors(str(weights_file))).eval()


# --- Llama, Qwen3 and Gemma 3 in Hugging Face's layout ---------------------------------------

# model_type -> the module that builds it: config_from_hf, MODEL (its class), load_weights, state_of,
# hf_config
MODERN = {
    "qwen3": "attention.model.qwen3",
    "llama": "attention.model.llama3",
    "gemma3_text": "attention.model.gemma3",
}


def architecture(model_type: str):
    """The module of the book-style architecture for a config.json's model_type."""
    import importlib

    return importlib.import_module(MODERN[model_type])


def modern_bytes(cfg: dict, dtype: torch.dtype = torch.float32) -> int:
    """What a Qwen3/Llama/Gemma model of `cfg` allocates in `dtype`, from the config alone: its
    embedding (and untied output layer), per block the attention's projections, the SwiGLU's
    three matrices and the norms, and RoPE's cos and sin."""
    d, hd, heads, groups = cfg["emb_dim"], cfg["head_dim"], cfg["n_heads"], cfg["n_kv_groups"]
    embedding = cfg["vocab_size"] * d * (1 if cfg.get("tie_embeddings", True) else 2)
    block = 2 * d * heads * hd + 2 * d * groups * hd + 3 * d * cfg["hidden_dim"] + 4 * d + 2 * hd
    rope = 4 * cfg["context_length"] * hd
    return (embedding + cfg["n_layers"] * block + rope) * torch.finfo(dtype).bits // 8


MEMORY = N_(
    "This model needs {mb:,.0f} MB of memory ({dtype}); this server opens models up to {most:,} MB. "
    "ATTENTION_MAX_MODEL_MB raises the limit."
)


def check_memory(cfg: dict, dtype: torch.dtype) -> dict:
    """`cfg`, where its model fits MAX_MODEL_MB in `dtype` (modern_bytes); else ConfigError."""
    if (mb := modern_bytes(cfg, dtype) / 2**20) > MAX_MODEL_MB:
        raise ConfigError(tr(MEMORY, mb=mb, dtype=str(dtype)[6:], most=MAX_MODEL_MB), "source")
    return cfg


def weights_of(folder: Path) -> _Tensors:
    """A folder's weights: model.safetensors, or the shards model.safetensors.index.json lists."""
    index = folder / "model.safetensors.index.json"
    if (folder / "model.safetensors").is_file():
        return _Tensors(str(folder / "model.safetensors"))
    if index.is_file():
        try:
            shards = json.loads(index.read_text())["weight_map"]
        except (ValueError, OSError, KeyError, TypeError) as error:
            raise ConfigError(
                f"{index.name} is not a readable index of shards ({error})", "source"
            ) from error
        if not isinstance(shards, dict) or any(
            "/" in f or "\\" in f or f.startswith(".") for f in shards.values()
        ):
            raise ConfigError(f"{index.name}: its weight_map must name files in the folder", "source")
        return _Tensors(str(folder), shards)
    raise ConfigError(
        f"{folder.name} has no model.safetensors (nor a model.safetensors.index.json of shards); "
        ".bin pickles are not opened",
        "source",
    )


def load_modern(folder: Path, hf: dict, dtype: torch.dtype = torch.float32):
    """A Qwen3, Llama or Gemma 3 folder as the book-style model, in eval mode, its weights in
    `dtype` (whatever the file holds: bf16 weights read into float32 by default)."""
    arch = architecture(hf["model_type"])
    cfg = check_memory(arch.config_from_hf(hf) | {"dtype": dtype}, dtype)
    model = arch.MODEL(cfg)
    return arch.load_weights(model, weights_of(folder)).eval()


def load_model(source: str | Path, dtype: torch.dtype = torch.float32):
    """The one entry point: a checkpoint folder in Hugging Face's layout as the book's model of its
    config.json's model_type: gpt2 (GPTModel, load_gpt2), qwen3 (Qwen3Model), llama (Llama3Model),
    gemma3_text (Gemma3Model). A .safetensors file with its config.json beside it opens too."""
    path = Path(source)
    config_file = (path.parent if path.is_file() else path) / "config.json"
    if not config_file.is_file():
        return load_gpt2(source)  # its own words for what is missing
    try:
        hf = json.loads(config_file.read_text())
    except (ValueError, OSError) as error:
        raise ConfigError(f"{config_file} is not a readable config.json ({error})", "source") from error
    kind = hf.get("model_type", "gpt2") if isinstance(hf, dict) else "gpt2"
    if kind in MODERN:  # a file names its folder: the weights may be shards beside it
        return load_modern(path if path.is_dir() else path.parent, hf, dtype)
    if kind not in ("gpt2", *MODERN):
        raise ConfigError(
            f"config.json's model_type is {str(kind)[:40]!r}: this app opens gpt2, {', '.join(MODERN)}",
            "source",
        )
    return load_gpt2(source)
