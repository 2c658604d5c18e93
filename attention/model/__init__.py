"""A real model: the book's chapter-4 GPTModel, its checkpoints in GPT-2's layout, GPT-2's
tokenizer, head roles, interventions on heads, the catalogue of models a page can open, and one
sentence through a model.

    gpt.py          GPTModel (the book's classes) and ModelTrace: one AttentionTrace per block
    checkpoint.py   load_gpt2 / save_gpt2: GPT-2's safetensors layout, config.json checked first
    tokenizer.py    GPT-2's BPE offline
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
