"""A real model: the book's chapter-4 GPTModel, its checkpoints in GPT-2's layout, GPT-2's
tokenizer, head roles, interventions on heads, the catalogue of models a page can open, and one
sentence through a model.

    gpt.py          GPTModel (the book's classes) and ModelTrace: one AttentionTrace per block
    qwen3.py        Qwen3Model, from scratch in the book's names (after rasbt's bonus code): RMSNorm,
                    RoPE, GroupedQueryAttention with QK-norm, sliding-window layers, SwiGLU
    qwen3_parts.py  its config's checks and blocks (RMSNorm, FeedForward, GroupedQueryAttention, ...)
    llama3.py       Llama3Model: Qwen3's pieces without QK-norm, Llama 3's rescaled RoPE
    gemma3.py       Gemma3Model: multi-query attention, four (1 + scale) norms a block, two RoPE bases
    checkpoint.py   load_model, the one entry point for a folder in Hugging Face's layout (gpt2,
                    qwen3, llama, gemma3_text; sharded or not, bf16 or fp32); load_gpt2 / save_gpt2;
                    config.json checked first
    hf_layout.py    save_hf: a Qwen3, Llama or Gemma 3 model in Hugging Face's layout
    tokenizer.py    GPT-2's BPE offline; a folder's tokenizer.json (FolderTokenizer)
    roles.py        head roles (previous-token, first-token, duplicate, induction) and their probes
    interventions.py  test what a head does: ablate (zero, mean), patch from a clean run, L x H maps
    lens.py         the logit lens (every layer read through final_norm and out_head) and direct
                    logit attribution (a logit split into each head's and MLP's part)
    explain.py      which tokens mattered: attention, rollout, flow, gradient × input, against ablation
    __main__.py     `python -m attention.model ablate|importance|lens|explain …`: all of it from
                    the command line
    hub.py          hub downloads, only when asked (catalog.download is the one caller)
    catalog.py      which models there are, what each is, loading one
    sentence.py     a sentence -> token ids, every head's weights, the next token
"""
