"""A tiny random-weight Qwen2 model with an offline tokenizer, for starting a real vLLM.

Run with an interpreter that has ``torch``, ``transformers`` and ``tokenizers`` (a vLLM
environment does): ``python tiny_model.py DIRECTORY``. Nothing is downloaded.
"""

from __future__ import annotations

import sys
from pathlib import Path

#: What the byte-level BPE tokenizer is trained on: a few sentences, and made-up words of
#: two syllables, enough for the trainer to fill ``VOCAB_SIZE``.
SENTENCES = (
    "hello world, the model is tiny and its weights are random.",
    "a user asks the assistant a question; the assistant answers it.",
    "vLLM serves this model on the CPU for enginekit's tests.",
)
SYLLABLES = tuple(c + v for c in "bdfgklmnprstvz" for v in "aeiou")
SPECIAL = ("<|endoftext|>", "<|im_start|>", "<|im_end|>")
VOCAB_SIZE = 1024
CHAT_TEMPLATE = (
    "{% for message in messages %}<|im_start|>{{ message['role'] }}\n"
    "{{ message['content'] }}<|im_end|>\n{% endfor %}"
    "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}"
)


def make_tiny_model(directory: str | Path) -> Path:
    """Write a 2-layer, 128-wide Qwen2 model (float32 safetensors) and its tokenizer to ``directory``."""
    # Not in the repository's environment: the vLLM environment's interpreter runs this.
    import torch  # type: ignore[import-not-found, unused-ignore]
    from tokenizers import (  # type: ignore[import-not-found, unused-ignore]
        Tokenizer,
        decoders,
        models,
        pre_tokenizers,
        trainers,
    )
    from transformers import (  # type: ignore[import-not-found, unused-ignore]
        PreTrainedTokenizerFast,
        Qwen2Config,
        Qwen2ForCausalLM,
    )

    out = Path(directory)
    out.mkdir(parents=True, exist_ok=True)
    # Byte-level BPE, as Qwen2's own tokenizer: transformers loads a qwen2 model's tokenizer
    # as Qwen2Tokenizer, which keeps vocab and merges but not a foreign pipeline.
    core = Tokenizer(models.BPE())
    core.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False)
    core.decoder = decoders.ByteLevel()
    trainer = trainers.BpeTrainer(
        vocab_size=VOCAB_SIZE,
        special_tokens=list(SPECIAL),
        initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
        show_progress=False,
    )
    words = [" ".join(a + b for b in SYLLABLES) for a in SYLLABLES]
    core.train_from_iterator([*SENTENCES * 8, *words], trainer=trainer)
    vocab = core.get_vocab()
    tokenizer = PreTrainedTokenizerFast(
        tokenizer_object=core,
        eos_token="<|im_end|>",
        bos_token="<|endoftext|>",
        pad_token="<|endoftext|>",
        additional_special_tokens=["<|im_start|>"],
    )
    tokenizer.chat_template = CHAT_TEMPLATE
    tokenizer.save_pretrained(out)

    config = Qwen2Config(
        vocab_size=len(vocab),
        hidden_size=128,
        intermediate_size=256,
        num_hidden_layers=2,
        num_attention_heads=4,
        num_key_value_heads=2,
        head_dim=32,
        max_position_embeddings=512,
        tie_word_embeddings=True,
        bos_token_id=vocab["<|endoftext|>"],
        eos_token_id=vocab["<|im_end|>"],
        pad_token_id=vocab["<|endoftext|>"],
        dtype="float32",
    )
    torch.manual_seed(0)
    model = Qwen2ForCausalLM(config).to(torch.float32)
    model.save_pretrained(out, safe_serialization=True)
    return out


if __name__ == "__main__":
    print(make_tiny_model(sys.argv[1]))
