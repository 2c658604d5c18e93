"""The hub models the Model list offers (hub.py downloads them): what each is, how large, whether
the hub asks for a token (gated)."""

from __future__ import annotations

from dataclasses import dataclass

from attention.i18n import N_


@dataclass(frozen=True)
class HubModel:
    repo: str
    label: str  # in English (N_): catalog shows it through tr
    parameters: str
    megabytes: int  # model.safetensors (or its shards together)
    memory: str  # resident: a GPT-2 as the book's GPTModel in float32, today's layouts in bfloat16
    gated: bool = False  # its licence accepted on the hub, and a token (HF_TOKEN), before a download
    layout: str = "gpt2"  # config.json's model_type


HUB_MODELS = {
    m.repo: m
    for m in (
        # TRANSLATORS: a model's name, kept as OpenAI wrote it in most languages
        HubModel("openai-community/gpt2", N_("GPT-2 small"), "124 M", 548, "~0.6 GB"),
        # TRANSLATORS: a model's name: keep "distilgpt2", translate the words in parentheses
        HubModel("distilbert/distilgpt2", N_("distilgpt2 (6 layers)"), "82 M", 353, "~0.4 GB"),
        # TRANSLATORS: a model's name, kept as OpenAI wrote it in most languages
        HubModel("openai-community/gpt2-medium", N_("GPT-2 medium"), "355 M", 1520, "~1.6 GB"),
        # Today's layouts, built in bfloat16 (hub.DTYPE). Sizes are the hub's figures for each repo's
        # model.safetensors (bfloat16); Llama-3.2-1B's 2.5 GB is over the default ATTENTION_MAX_MODEL_MB.
        # TRANSLATORS: a model's name, kept as Alibaba's Qwen team wrote it
        HubModel("Qwen/Qwen3-0.6B", N_("Qwen3-0.6B"), "0.6 B", 1503, "~1.2 GB", layout="qwen3"),
        # TRANSLATORS: a model's name, kept as Hugging Face wrote it
        HubModel("HuggingFaceTB/SmolLM2-135M", N_("SmolLM2-135M"), "135 M", 269, "~0.3 GB", layout="llama"),
        # TRANSLATORS: a model's name, kept as Google wrote it
        HubModel("google/gemma-3-270m", N_("Gemma 3 270M"), "270 M", 536, "~0.6 GB", True, "gemma3_text"),
        # TRANSLATORS: a model's name, kept as Meta wrote it
        HubModel("meta-llama/Llama-3.2-1B", N_("Llama 3.2 1B"), "1.2 B", 2471, "~2.5 GB", True, "llama"),
    )
}
