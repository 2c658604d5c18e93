"""A book-style Qwen3, Llama or Gemma 3 written in Hugging Face's layout (config.json +
model.safetensors), which checkpoint.load_model and transformers open."""

from __future__ import annotations

import json
import os
from pathlib import Path

import torch

from attention.model.checkpoint import architecture


def save_hf(model, folder: str | Path, dtype: torch.dtype = torch.float32, **config_extra) -> Path:
    """A Qwen3/Llama/Gemma model in Hugging Face's layout (config.json + model.safetensors), which
    load_model and transformers open; config.json last and whole, as save_gpt2 writes it."""
    from safetensors.torch import save_file

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    arch = architecture(model.MODEL_TYPE)
    state = arch.state_of(model)
    save_file(
        {k: v.to(dtype) for k, v in state.items()},
        str(folder / "model.safetensors"),
        metadata={"format": "pt"},
    )
    config = arch.hf_config(model.cfg, **config_extra) | {"dtype": str(dtype).removeprefix("torch.")}
    part = folder / "config.json.part"
    part.write_text(json.dumps(config, indent=2) + "\n")
    os.replace(part, folder / "config.json")
    return folder
