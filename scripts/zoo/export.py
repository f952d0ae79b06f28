#!/usr/bin/env python3
"""Export the runtime-truth zoo: small random-weight models, each with both torch exporters.

Every architecture is built from a config written here (transformers config objects,
torchvision constructors with `weights=None`), so nothing is downloaded. Each one is
exported twice:

  <name>_ts17.onnx   torch.onnx.export(..., dynamo=False, opset_version=17, dynamic_axes=...)
  <name>_dyn18.onnx  torch.onnx.export(..., dynamo=True,  opset_version=18, dynamic_shapes=...)

Dynamic axes: batch and sequence for text (plus decoder_sequence for encoder-decoder
models), batch (and height/width where the model takes any size) for vision, batch and
samples for audio. When the torch.export exporter refuses the full set of dynamic axes,
the export is retried with the spec's fallback set (batch only, say), and the log says so.

The log, `<out>/export_log.json`, has one entry per file, ok or not:

  {"<file>": {"ok": true, "arch": "bert", "exporter": "torchscript"|"torch.export",
              "opset": 17, "seconds": 1.2, "nodes": 291, "recipe": "...",
              "inputs": {"input_ids": {"dims": ["batch", "sequence"], "dtype": "int64",
                                       "fill": "tokens"}, ...},
              "dynamic": ["batch", "sequence"],
              "bindings": [{"batch": 1, "sequence": 5}, ...],    # for score.py
              "note": "..."},
   "<file>": {"ok": false, "arch": ..., "exporter": ..., "error": "..."}}

`inputs[*].dims` are the dims score.py feeds: an int, or a name looked up in each of the
three `bindings`. `fill` says how to make the data (see score.py).

Usage (from anywhere; the venv of scripts/zoo/README.md):
  python export.py [--out /work/zoo/models] [--only bert,gpt2] [--exporters ts,dyn]
                   [--force] [--list] [--timeout 600]
Existing files are kept unless --force (their log entries too).
"""

import argparse
import json
import multiprocessing as mp
import os
import re
import sys
import time
import traceback
import warnings
from pathlib import Path

# ----------------------------------------------------------------------------- bindings

TEXT_B = [{"batch": 1, "sequence": 5}, {"batch": 2, "sequence": 8}, {"batch": 3, "sequence": 13}]
S2S_B = [dict(b, decoder_sequence=d) for b, d in zip(TEXT_B, (3, 6, 7))]
IMG_B = [{"batch": 1}, {"batch": 2}, {"batch": 3}]
# Vision models that take any size: distinct heights and widths.
HW_B = [{"batch": 1, "height": 32, "width": 32},
        {"batch": 2, "height": 48, "width": 64},
        {"batch": 3, "height": 64, "width": 40}]
# Plain CNNs: odd sizes, so floor divisions of strided convs and pools are exercised.
HW_ODD_B = [{"batch": 1, "height": 32, "width": 32},
            {"batch": 2, "height": 45, "width": 61},
            {"batch": 3, "height": 70, "width": 39}]
AUDIO_B = [{"batch": 1, "samples": 400}, {"batch": 2, "samples": 557}, {"batch": 3, "samples": 1000}]
DET_B = [{"height": 64, "width": 64}, {"height": 80, "width": 96}, {"height": 100, "width": 72}]

VOCAB = 1000
MAXPOS = 64  # learned position tables; the sequence Dim's upper bound

# ----------------------------------------------------------------------------- specs


def tok(*dims):
    return {"dims": list(dims), "dtype": "int64", "fill": "tokens"}


def ones(*dims):
    return {"dims": list(dims), "dtype": "int64", "fill": "ones"}


def zeros(*dims):
    return {"dims": list(dims), "dtype": "int64", "fill": "zeros"}


def randn(*dims):
    return {"dims": list(dims), "dtype": "float32", "fill": "randn"}


TEXT_IN = {"input_ids": tok("batch", "sequence"), "attention_mask": ones("batch", "sequence")}
BERT_IN = dict(TEXT_IN, token_type_ids=zeros("batch", "sequence"))
S2S_IN = dict(TEXT_IN, decoder_input_ids=tok("batch", "decoder_sequence"))
IDS_IN = {"input_ids": tok("batch", "sequence")}


def img(c=3, h=32, w=32, hw=False):
    return {"pixel_values": randn("batch", c, "height" if hw else h, "width" if hw else w)}


SPECS = {}


def spec(name, family, inputs, bindings, recipe, fallback=None, kwargs=None, tv=False):
    """Register an architecture. `build()` is the function decorated."""

    def deco(build):
        SPECS[name] = dict(name=name, family=family, inputs=inputs, bindings=bindings,
                           recipe=recipe, fallback=fallback, kwargs=kwargs or {},
                           build=build, tv=tv)
        return build

    return deco


def hf(cls_name, cfg_name, **cfg):
    """Build transformers model class `cls_name` from config class `cfg_name`(**cfg)."""
    import transformers

    cfg.setdefault("attn_implementation", "eager")
    c = getattr(transformers, cfg_name)(**cfg)
    return getattr(transformers, cls_name)(c)


# Small common sizes.
ENC = dict(num_hidden_layers=2, hidden_size=64, num_attention_heads=4, intermediate_size=128,
           vocab_size=VOCAB, max_position_embeddings=MAXPOS)
DEC = dict(num_hidden_layers=2, hidden_size=64, num_attention_heads=4, intermediate_size=128,
           vocab_size=VOCAB, max_position_embeddings=MAXPOS, use_cache=False)
GQA = dict(DEC, num_key_value_heads=2)
S2S = dict(vocab_size=VOCAB, d_model=64, encoder_layers=2, decoder_layers=2,
           encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=128,
           decoder_ffn_dim=128, max_position_embeddings=MAXPOS, use_cache=False,
           pad_token_id=1, decoder_start_token_id=2, eos_token_id=2, bos_token_id=0)
VIS = dict(num_hidden_layers=2, hidden_size=64, num_attention_heads=4, intermediate_size=128,
           image_size=32, patch_size=8, num_channels=3)
W2V = dict(num_hidden_layers=2, hidden_size=64, num_attention_heads=4, intermediate_size=128,
           conv_dim=(16, 16, 16), conv_kernel=(10, 3, 3), conv_stride=(5, 2, 2),
           num_conv_pos_embeddings=8, num_conv_pos_embedding_groups=4, vocab_size=32)

# --- text encoders
spec("bert", "text", BERT_IN, TEXT_B, "BertModel 2L h64 4 heads")(lambda: hf("BertModel", "BertConfig", **ENC))
spec("distilbert", "text", TEXT_IN, TEXT_B, "DistilBertModel 2L dim64")(
    lambda: hf("DistilBertModel", "DistilBertConfig", n_layers=2, dim=64, n_heads=4, hidden_dim=128,
               vocab_size=VOCAB, max_position_embeddings=MAXPOS))
spec("roberta", "text", TEXT_IN, TEXT_B, "RobertaModel 2L h64")(
    lambda: hf("RobertaModel", "RobertaConfig", **dict(ENC, max_position_embeddings=MAXPOS + 2)))
spec("xlm_roberta", "text", TEXT_IN, TEXT_B, "XLMRobertaModel 2L h64")(
    lambda: hf("XLMRobertaModel", "XLMRobertaConfig", **dict(ENC, max_position_embeddings=MAXPOS + 2)))
spec("deberta_v2", "text", BERT_IN, TEXT_B, "DebertaV2Model 2L h64, relative attention p2c|c2p, buckets 16")(
    lambda: hf("DebertaV2Model", "DebertaV2Config", **dict(ENC, relative_attention=True, position_buckets=16,
                                                          max_relative_positions=MAXPOS,
                                                          pos_att_type=["p2c", "c2p"], type_vocab_size=0)))
spec("albert", "text", BERT_IN, TEXT_B, "AlbertModel 2L h64 emb32")(
    lambda: hf("AlbertModel", "AlbertConfig", **dict(ENC, embedding_size=32)))
spec("electra", "text", BERT_IN, TEXT_B, "ElectraModel 2L h64 emb32")(
    lambda: hf("ElectraModel", "ElectraConfig", **dict(ENC, embedding_size=32)))
spec("mpnet", "text", TEXT_IN, TEXT_B, "MPNetModel 2L h64, relative attention buckets")(
    lambda: hf("MPNetModel", "MPNetConfig", **dict(ENC, max_position_embeddings=MAXPOS + 2)))
spec("convbert", "text", BERT_IN, TEXT_B, "ConvBertModel 2L h64 emb32 (span-based dynamic conv)")(
    lambda: hf("ConvBertModel", "ConvBertConfig", **dict(ENC, embedding_size=32, conv_kernel_size=3)))
spec("funnel", "text", BERT_IN, TEXT_B, "FunnelBaseModel blocks [1,1], d64 (pooling halves the sequence)")(
    lambda: hf("FunnelBaseModel", "FunnelConfig", block_sizes=[1, 1], d_model=64, n_head=4, d_head=16,
               d_inner=128, vocab_size=VOCAB, max_position_embeddings=MAXPOS))
spec("squeezebert", "text", TEXT_IN, TEXT_B, "SqueezeBertModel 2L h64 (grouped 1x1 convs)")(
    lambda: hf("SqueezeBertModel", "SqueezeBertConfig", **dict(ENC, embedding_size=64)))
spec("mobilebert", "text", BERT_IN, TEXT_B, "MobileBertModel 2L h64 bottleneck 32")(
    lambda: hf("MobileBertModel", "MobileBertConfig", **dict(ENC, embedding_size=32, intra_bottleneck_size=32,
                                                           true_hidden_size=32, num_feedforward_networks=2)))
spec("longformer", "text", TEXT_IN, TEXT_B, "LongformerModel 2L h64, attention_window 4 (pads to a multiple)")(
    lambda: hf("LongformerModel", "LongformerConfig", **dict(ENC, attention_window=[4, 4],
                                                            max_position_embeddings=MAXPOS + 2)))
spec("xlnet", "text", TEXT_IN, TEXT_B, "XLNetModel 2L d64 (relative positions, two streams off)")(
    lambda: hf("XLNetModel", "XLNetConfig", n_layer=2, d_model=64, n_head=4, d_inner=128, vocab_size=VOCAB,
               use_mems_eval=False))

# --- decoders
spec("gpt2", "text", TEXT_IN, TEXT_B, "GPT2Model 2L n_embd64")(
    lambda: hf("GPT2Model", "GPT2Config", n_layer=2, n_embd=64, n_head=4, n_positions=MAXPOS, vocab_size=VOCAB,
               use_cache=False))
spec("gpt_neo", "text", TEXT_IN, TEXT_B, "GPTNeoModel 2L h64, global+local(window 4) attention")(
    lambda: hf("GPTNeoModel", "GPTNeoConfig", num_layers=2, hidden_size=64, num_heads=4,
               attention_types=[[["global", "local"], 1]], window_size=4, vocab_size=VOCAB,
               max_position_embeddings=MAXPOS, use_cache=False))
spec("gptj", "text", TEXT_IN, TEXT_B, "GPTJModel 2L n_embd64 rotary_dim 8")(
    lambda: hf("GPTJModel", "GPTJConfig", n_layer=2, n_embd=64, n_head=4, rotary_dim=8, n_positions=MAXPOS,
               vocab_size=VOCAB, use_cache=False))
spec("gpt_neox", "text", TEXT_IN, TEXT_B, "GPTNeoXModel 2L h64 rotary_pct 0.25")(
    lambda: hf("GPTNeoXModel", "GPTNeoXConfig", **dict(DEC, rotary_pct=0.25)))
spec("codegen", "text", TEXT_IN, TEXT_B, "CodeGenModel 2L n_embd64 rotary_dim 8")(
    lambda: hf("CodeGenModel", "CodeGenConfig", n_layer=2, n_embd=64, n_head=4, rotary_dim=8, n_positions=MAXPOS,
               n_ctx=MAXPOS, vocab_size=VOCAB, use_cache=False))
spec("opt", "text", TEXT_IN, TEXT_B, "OPTModel 2L h64")(
    lambda: hf("OPTModel", "OPTConfig", num_hidden_layers=2, hidden_size=64, num_attention_heads=4, ffn_dim=128,
               word_embed_proj_dim=64, vocab_size=VOCAB, max_position_embeddings=MAXPOS, use_cache=False))
spec("bloom", "text", TEXT_IN, TEXT_B, "BloomModel 2L h64 (ALiBi)")(
    lambda: hf("BloomModel", "BloomConfig", n_layer=2, hidden_size=64, n_head=4, vocab_size=VOCAB, use_cache=False))
spec("falcon", "text", TEXT_IN, TEXT_B, "FalconModel 2L h64 rotary, multi-query")(
    lambda: hf("FalconModel", "FalconConfig", num_hidden_layers=2, hidden_size=64, num_attention_heads=4,
               vocab_size=VOCAB, max_position_embeddings=MAXPOS, use_cache=False, alibi=False,
               multi_query=True, new_decoder_architecture=False, parallel_attn=True))
spec("llama", "text", TEXT_IN, TEXT_B, "LlamaModel 2L h64 GQA 4/2")(lambda: hf("LlamaModel", "LlamaConfig", **GQA))
spec("mistral", "text", TEXT_IN, TEXT_B, "MistralModel 2L h64 GQA 4/2, sliding window 4")(
    lambda: hf("MistralModel", "MistralConfig", **dict(GQA, sliding_window=4)))
spec("qwen2", "text", TEXT_IN, TEXT_B, "Qwen2Model 2L h64 GQA 4/2")(lambda: hf("Qwen2Model", "Qwen2Config", **GQA))
spec("qwen3", "text", TEXT_IN, TEXT_B, "Qwen3Model 2L h64 GQA 4/2 head_dim 16, qk-norm")(
    lambda: hf("Qwen3Model", "Qwen3Config", **dict(GQA, head_dim=16)))
spec("phi", "text", TEXT_IN, TEXT_B, "PhiModel 2L h64 partial rotary 0.5")(
    lambda: hf("PhiModel", "PhiConfig", **dict(DEC, partial_rotary_factor=0.5)))
spec("phi3", "text", TEXT_IN, TEXT_B, "Phi3Model 2L h64 GQA 4/2")(
    lambda: hf("Phi3Model", "Phi3Config", **dict(GQA, pad_token_id=0)))
spec("gemma", "text", TEXT_IN, TEXT_B, "GemmaModel 2L h64 GQA 4/2 head_dim 16")(
    lambda: hf("GemmaModel", "GemmaConfig", **dict(GQA, head_dim=16)))
spec("gemma2", "text", TEXT_IN, TEXT_B, "Gemma2Model 2L h64 GQA 4/2, sliding window 4, softcapping")(
    lambda: hf("Gemma2Model", "Gemma2Config", **dict(GQA, head_dim=16, sliding_window=4)))
spec("stablelm", "text", TEXT_IN, TEXT_B, "StableLmModel 2L h64 GQA 4/2")(
    lambda: hf("StableLmModel", "StableLmConfig", **GQA))
spec("starcoder2", "text", TEXT_IN, TEXT_B, "Starcoder2Model 2L h64 GQA 4/2")(
    lambda: hf("Starcoder2Model", "Starcoder2Config", **dict(GQA, sliding_window=None)))
spec("olmo", "text", TEXT_IN, TEXT_B, "OlmoModel 2L h64")(lambda: hf("OlmoModel", "OlmoConfig", **DEC))
spec("granite", "text", TEXT_IN, TEXT_B, "GraniteModel 2L h64 GQA 4/2")(
    lambda: hf("GraniteModel", "GraniteConfig", **GQA))


def _moe(impl):
    import transformers

    c = transformers.MixtralConfig(**dict(GQA, num_local_experts=4, num_experts_per_tok=2),
                                   attn_implementation="eager")
    c._experts_implementation = impl
    return transformers.MixtralModel(c)


spec("mixtral", "text", TEXT_IN, TEXT_B,
     "MixtralModel 2L h64 GQA 4/2, 4 experts top-2, default experts_implementation (grouped_mm)")(
    lambda: hf("MixtralModel", "MixtralConfig", **dict(GQA, num_local_experts=4, num_experts_per_tok=2)))
spec("mixtral_batched", "text", TEXT_IN, TEXT_B,
     "MixtralModel 2L h64 GQA 4/2, 4 experts top-2, experts_implementation batched_mm (gathers expert weights)")(
    lambda: _moe("batched_mm"))
spec("mixtral_eager", "text", TEXT_IN, TEXT_B,
     "MixtralModel 2L h64 GQA 4/2, 4 experts top-2, experts_implementation eager (loop over hit experts)")(
    lambda: _moe("eager"))

# --- encoder-decoder
spec("bart", "seq2seq", S2S_IN, S2S_B, "BartModel 2+2L d64")(lambda: hf("BartModel", "BartConfig", **S2S))
spec("mbart", "seq2seq", S2S_IN, S2S_B, "MBartModel 2+2L d64")(lambda: hf("MBartModel", "MBartConfig", **S2S))
spec("marian", "seq2seq", S2S_IN, S2S_B, "MarianModel 2+2L d64 (sinusoidal positions)")(
    lambda: hf("MarianModel", "MarianConfig", **dict(S2S, pad_token_id=1, decoder_start_token_id=1)))
spec("pegasus", "seq2seq", S2S_IN, S2S_B, "PegasusModel 2+2L d64")(
    lambda: hf("PegasusModel", "PegasusConfig", **S2S))
spec("blenderbot_small", "seq2seq", S2S_IN, S2S_B, "BlenderbotSmallModel 2+2L d64")(
    lambda: hf("BlenderbotSmallModel", "BlenderbotSmallConfig", **S2S))
spec("m2m_100", "seq2seq", S2S_IN, S2S_B, "M2M100Model 2+2L d64")(
    lambda: hf("M2M100Model", "M2M100Config", **S2S))
spec("t5", "seq2seq", S2S_IN, S2S_B, "T5Model 2+2L d64 (relative position buckets)")(
    lambda: hf("T5Model", "T5Config", vocab_size=VOCAB, d_model=64, d_kv=16, d_ff=128, num_layers=2,
               num_heads=4, use_cache=False, decoder_start_token_id=0, relative_attention_num_buckets=8))

# --- vision
spec("vit", "vision", img(), IMG_B, "ViTModel 2L h64, 32x32 patch 8 (fixed size)")(
    lambda: hf("ViTModel", "ViTConfig", **VIS))
spec("vit_interp", "vision", img(hw=True), HW_B,
     "ViTModel 2L h64, patch 8, interpolate_pos_encoding=True (any size)",
     fallback=["batch"], kwargs={"interpolate_pos_encoding": True})(lambda: hf("ViTModel", "ViTConfig", **VIS))
spec("deit", "vision", img(), IMG_B, "DeiTModel 2L h64 32x32 patch 8 (cls+distillation tokens)")(
    lambda: hf("DeiTModel", "DeiTConfig", **VIS))
spec("beit", "vision", img(), IMG_B, "BeitModel 2L h64 32x32 patch 8, relative position bias")(
    lambda: hf("BeitModel", "BeitConfig", **dict(VIS, use_relative_position_bias=True)))
spec("data2vec_vision", "vision", img(), IMG_B, "Data2VecVisionModel 2L h64 32x32 patch 8")(
    lambda: hf("Data2VecVisionModel", "Data2VecVisionConfig", **dict(VIS, use_relative_position_bias=True)))
spec("dinov2", "vision", img(hw=True), HW_B, "Dinov2Model 2L h64 patch 8 (always interpolates positions)",
     fallback=["batch"])(lambda: hf("Dinov2Model", "Dinov2Config", **VIS))
spec("vit_mae", "vision", img(), IMG_B, "ViTMAEModel 2L h64 32x32 patch 8, mask_ratio 0.5 (random masking)")(
    lambda: hf("ViTMAEModel", "ViTMAEConfig", **dict(VIS, mask_ratio=0.5)))
spec("yolos", "vision", img(hw=True), HW_B, "YolosModel 2L h64 patch 8, 10 detection tokens (interpolates)",
     fallback=["batch"])(lambda: hf("YolosModel", "YolosConfig", **dict(VIS, image_size=[32, 32],
                                                                        num_detection_tokens=10)))
spec("swin", "vision", img(hw=True), HW_B, "SwinModel depths [1,1] embed 16, patch 2, window 2 (pads)",
     fallback=["batch"])(
    lambda: hf("SwinModel", "SwinConfig", image_size=32, patch_size=2, embed_dim=16, depths=[1, 1],
               num_heads=[2, 2], window_size=2))
spec("convnext", "vision", img(hw=True), HW_ODD_B, "ConvNextModel 2 stages [8,16] depths [1,1]",
     fallback=["batch"])(
    lambda: hf("ConvNextModel", "ConvNextConfig", num_stages=2, hidden_sizes=[8, 16], depths=[1, 1]))
spec("segformer", "vision", img(hw=True), HW_B, "SegformerModel 2 blocks, hidden [8,16], sr [2,1]",
     fallback=["batch"])(
    lambda: hf("SegformerModel", "SegformerConfig", num_encoder_blocks=2, depths=[1, 1], sr_ratios=[2, 1],
               hidden_sizes=[8, 16], patch_sizes=[7, 3], strides=[4, 2], num_attention_heads=[1, 2],
               mlp_ratios=[2, 2]))
spec("mobilevit", "vision", img(hw=True), HW_B, "MobileViTModel xx-small-like, patch 2",
     fallback=["batch"])(
    lambda: hf("MobileViTModel", "MobileViTConfig", image_size=32, hidden_sizes=[16, 24, 32],
               neck_hidden_sizes=[8, 8, 16, 16, 24, 32, 64], num_attention_heads=2, patch_size=2))
spec("resnet_hf", "vision", img(hw=True), HW_ODD_B, "ResNetModel (transformers) basic, [8,16], depths [1,1]",
     fallback=["batch"])(
    lambda: hf("ResNetModel", "ResNetConfig", embedding_size=8, hidden_sizes=[8, 16], depths=[1, 1],
               layer_type="basic"))
spec("poolformer", "vision", img(hw=True), HW_ODD_B, "PoolFormerModel depths [1,1] hidden [8,16]",
     fallback=["batch"])(
    lambda: hf("PoolFormerModel", "PoolFormerConfig", num_encoder_blocks=2, depths=[1, 1], hidden_sizes=[8, 16],
               patch_sizes=[7, 3], strides=[4, 2], padding=[2, 1]))
spec("levit", "vision", img(), IMG_B, "LevitModel 32x32, 2 stages (fixed size)")(
    lambda: hf("LevitModel", "LevitConfig", image_size=32, hidden_sizes=[32, 48], num_attention_heads=[2, 3],
               depths=[1, 1], key_dim=[8, 8], down_ops=[["Subsample", 8, 2, 4, 2, 2]], patch_size=16))
spec("clip_vision", "vision", img(), IMG_B, "CLIPVisionModel 2L h64 32x32 patch 8")(
    lambda: hf("CLIPVisionModel", "CLIPVisionConfig", **VIS))
spec("siglip_vision", "vision", img(), IMG_B, "SiglipVisionModel 2L h64 32x32 patch 8")(
    lambda: hf("SiglipVisionModel", "SiglipVisionConfig", **VIS))
spec("clip_text", "text", TEXT_IN, TEXT_B, "CLIPTextModel 2L h64")(
    lambda: hf("CLIPTextModel", "CLIPTextConfig", **ENC))


def _clip():
    import transformers
    tc = dict(ENC)
    vc = dict(VIS)
    c = transformers.CLIPConfig(text_config=tc, vision_config=vc, projection_dim=32)
    c._attn_implementation = "eager"
    return transformers.CLIPModel(c)


spec("clip", "multimodal", dict(TEXT_IN, pixel_values=randn("image_batch", 3, 32, 32)),
     [dict(b, image_batch=i) for b, i in zip(TEXT_B, (2, 3, 1))], "CLIPModel text+vision 2L h64, proj 32")(_clip)

# --- audio
AUDIO_IN = {"input_values": randn("batch", "samples")}
spec("wav2vec2", "audio", AUDIO_IN, AUDIO_B, "Wav2Vec2Model 2L h64, 3 conv layers stride 20")(
    lambda: hf("Wav2Vec2Model", "Wav2Vec2Config", **W2V))
spec("hubert", "audio", AUDIO_IN, AUDIO_B, "HubertModel 2L h64, 3 conv layers stride 20")(
    lambda: hf("HubertModel", "HubertConfig", **W2V))
spec("wavlm", "audio", AUDIO_IN, AUDIO_B, "WavLMModel 2L h64, 3 conv layers, relative position buckets")(
    lambda: hf("WavLMModel", "WavLMConfig", **dict(W2V, num_buckets=16, max_bucket_distance=32)))
spec("data2vec_audio", "audio", AUDIO_IN, AUDIO_B, "Data2VecAudioModel 2L h64, 3 conv layers")(
    lambda: hf("Data2VecAudioModel", "Data2VecAudioConfig", **dict(W2V, conv_pos_kernel_size=5,
                                                                 num_conv_pos_embeddings=5)))
spec("sew", "audio", AUDIO_IN, AUDIO_B, "SEWModel 2L h64, 3 conv layers, squeeze 2")(
    lambda: hf("SEWModel", "SEWConfig", **dict(W2V, squeeze_factor=2)))
spec("unispeech", "audio", AUDIO_IN, AUDIO_B, "UniSpeechModel 2L h64, 3 conv layers")(
    lambda: hf("UniSpeechModel", "UniSpeechConfig", **W2V))

WHISPER = dict(vocab_size=VOCAB, num_mel_bins=16, encoder_layers=2, decoder_layers=2,
               encoder_attention_heads=4, decoder_attention_heads=4, encoder_ffn_dim=128,
               decoder_ffn_dim=128, d_model=64, max_source_positions=16, max_target_positions=MAXPOS,
               use_cache=False, pad_token_id=0, decoder_start_token_id=1, eos_token_id=2, bos_token_id=1)


def _whisper_encoder():
    m = hf("WhisperModel", "WhisperConfig", **WHISPER)
    return m.get_encoder()


spec("whisper_encoder", "audio", {"input_features": randn("batch", 16, 32)}, IMG_B,
     "WhisperEncoder 2L d64, 16 mels x 32 frames (the encoder wants exactly 2*max_source_positions frames)")(
    _whisper_encoder)
spec("whisper", "seq2seq", {"input_features": randn("batch", 16, 32),
                            "decoder_input_ids": tok("batch", "decoder_sequence")},
     [{"batch": 1, "decoder_sequence": 3}, {"batch": 2, "decoder_sequence": 6}, {"batch": 3, "decoder_sequence": 7}],
     "WhisperModel 2+2L d64, 16 mels x 32 frames")(lambda: hf("WhisperModel", "WhisperConfig", **WHISPER))
spec("ast", "audio", {"input_values": randn("batch", 32, 16)}, IMG_B,
     "ASTModel 2L h64, 32 frames x 16 mels, patch 8 stride 8 (fixed size)")(
    lambda: hf("ASTModel", "ASTConfig", num_hidden_layers=2, hidden_size=64, num_attention_heads=4,
               intermediate_size=128, patch_size=8, frequency_stride=8, time_stride=8, max_length=32,
               num_mel_bins=16))

# --- torchvision
PIX_HW = {"image": randn("batch", 3, "height", "width")}


def tvm(fn, **kw):
    import torchvision

    obj = torchvision.models
    for part in fn.split("."):
        obj = getattr(obj, part)
    return obj(weights=None, **kw)


for _n, _kw in [("resnet18", {}), ("mobilenet_v3_small", {}), ("mobilenet_v2", {}), ("efficientnet_b0", {}),
                ("densenet121", {}), ("squeezenet1_1", {}), ("shufflenet_v2_x0_5", {}),
                ("regnet_y_400mf", {}), ("mnasnet0_5", {}), ("googlenet", {"aux_logits": False,
                                                                         "init_weights": False}),
                ("resnext50_32x4d", {})]:
    spec(f"tv_{_n}", "vision", PIX_HW, HW_ODD_B, f"torchvision {_n}(weights=None, num_classes=10)",
         fallback=["batch"], tv=True)((lambda n, kw: lambda: tvm(n, num_classes=10, **kw))(_n, _kw))


def _tv_vit():
    from torchvision.models.vision_transformer import VisionTransformer

    return VisionTransformer(image_size=32, patch_size=8, num_layers=2, num_heads=4, hidden_dim=64,
                             mlp_dim=128, num_classes=10)


spec("tv_vit_small", "vision", {"image": randn("batch", 3, 32, 32)}, IMG_B,
     "torchvision VisionTransformer(image 32, patch 8, 2 layers, hidden 64) (fixed size)", tv=True)(_tv_vit)


def _tv_swin():
    from torchvision.models.swin_transformer import SwinTransformer

    return SwinTransformer(patch_size=[2, 2], embed_dim=16, depths=[1, 1], num_heads=[2, 2], window_size=[2, 2],
                           num_classes=10)


spec("tv_swin_small", "vision", PIX_HW, HW_B, "torchvision SwinTransformer(patch 2, embed 16, depths [1,1], window 2)",
     fallback=["batch"], tv=True)(_tv_swin)


def _seg(kind):
    import torchvision
    from torchvision.models._utils import IntermediateLayerGetter
    from torchvision.models.segmentation import deeplabv3, fcn

    bb = IntermediateLayerGetter(torchvision.models.resnet18(weights=None), return_layers={"layer4": "out"})
    if kind == "fcn":
        return fcn.FCN(bb, fcn.FCNHead(512, 5))
    return deeplabv3.DeepLabV3(bb, deeplabv3.DeepLabHead(512, 5))


spec("tv_fcn_resnet18", "segmentation", PIX_HW, HW_ODD_B, "torchvision FCN with a resnet18 backbone, 5 classes",
     fallback=["batch"], tv=True)(lambda: _seg("fcn"))
spec("tv_deeplabv3_resnet18", "segmentation", PIX_HW, HW_ODD_B,
     "torchvision DeepLabV3 with a resnet18 backbone, 5 classes (ASPP: global pool + upsample)",
     fallback=["batch"], tv=True)(lambda: _seg("deeplab"))
spec("tv_lraspp_mobilenet_v3_large", "segmentation", PIX_HW, HW_ODD_B,
     "torchvision lraspp_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=5)",
     fallback=["batch"], tv=True)(
    lambda: tvm("segmentation.lraspp_mobilenet_v3_large", weights_backbone=None, num_classes=5))
spec("tv_deeplabv3_mobilenet_v3_large", "segmentation", PIX_HW, HW_ODD_B,
     "torchvision deeplabv3_mobilenet_v3_large(weights=None, weights_backbone=None, num_classes=5)",
     fallback=["batch"], tv=True)(
    lambda: tvm("segmentation.deeplabv3_mobilenet_v3_large", weights_backbone=None, num_classes=5,
                aux_loss=False))

DET_IN = {"image": randn(3, "height", "width")}
for _n, _kw in [("fasterrcnn_mobilenet_v3_large_320_fpn", {}), ("ssdlite320_mobilenet_v3_large", {}),
                ("retinanet_resnet50_fpn", {})]:
    spec(f"tv_{_n}", "detection", DET_IN, DET_B,
         f"torchvision detection.{_n}(weights=None, weights_backbone=None, num_classes=5), one image [3,H,W]",
         tv=True)((lambda n: lambda: tvm("detection." + n, weights_backbone=None, num_classes=5))(_n))


# ----------------------------------------------------------------------------- wrapping


def flatten(o, out):
    import torch

    if isinstance(o, torch.Tensor):
        out.append(o)
    elif isinstance(o, (list, tuple)):
        for x in o:
            flatten(x, out)
    elif isinstance(o, dict):
        for k in sorted(o):
            flatten(o[k], out)
    elif hasattr(o, "to_tuple"):
        flatten(o.to_tuple(), out)
    return out


def wrap(model, sp):
    """An nn.Module whose forward takes exactly the spec's inputs, positionally, and
    returns a flat tuple of tensors (both exporters want that)."""
    import torch

    names = list(sp["inputs"])
    kwargs = dict(sp["kwargs"])
    family = sp["family"]
    hf_model = not sp["tv"]
    if hf_model:
        kwargs.setdefault("return_dict", False)
        if family in ("text", "seq2seq", "multimodal") and sp["name"] not in (
                "clip_text", "clip", "xlnet", "funnel", "longformer", "convbert", "mobilebert", "squeezebert",
                "mpnet", "distilbert", "albert", "electra", "deberta_v2", "bert", "roberta", "xlm_roberta"):
            kwargs.setdefault("use_cache", False)

    src = (f"def forward(self, {', '.join(names)}):\n"
           f"    return self.call({', '.join(f'{n}={n}' for n in names)})\n")
    ns = {}
    exec(src, ns)

    class Wrapped(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.m = model

        def call(self, **inputs):
            if sp["family"] == "detection":
                out = self.m([inputs["image"]])
            elif sp["tv"]:
                out = self.m(inputs["image"])
            else:
                out = self.m(**inputs, **kwargs)
            return tuple(flatten(out, []))

    Wrapped.forward = ns["forward"]
    return Wrapped().eval()


def example_inputs(sp, binding):
    import torch

    g = torch.Generator().manual_seed(0)
    out = []
    for name, inp in sp["inputs"].items():
        shape = [binding[d] if isinstance(d, str) else d for d in inp["dims"]]
        if inp["fill"] == "tokens":
            out.append(torch.randint(0, 100, shape, generator=g, dtype=torch.int64))
        elif inp["fill"] == "ones":
            out.append(torch.ones(shape, dtype=torch.int64))
        elif inp["fill"] == "zeros":
            out.append(torch.zeros(shape, dtype=torch.int64))
        else:
            out.append(torch.randn(shape, generator=g))
    return tuple(out)


# Example sizes used at export time: not 1 (torch.export specialises 0/1), and not equal to
# one another or the models' constants, so neither tracer ties two dims together by accident.
EXPORT_SIZES = {"batch": 2, "image_batch": 3, "sequence": 11, "decoder_sequence": 7,
                "height": 48, "width": 56, "samples": 720}


def dim_specs(sp, dyn):
    """dynamic_axes (TorchScript) and dynamic_shapes (torch.export) for the axes in `dyn`."""
    from torch.export import Dim

    bounds = {"sequence": (2, MAXPOS), "decoder_sequence": (2, MAXPOS), "height": (32, 512),
              "width": (32, 512), "samples": (400, 16000), "batch": (1, 1024), "image_batch": (1, 1024)}
    dims = {n: Dim(n, min=bounds[n][0], max=bounds[n][1]) for n in dyn}
    axes, shapes = {}, []
    for name, inp in sp["inputs"].items():
        a = {i: d for i, d in enumerate(inp["dims"]) if isinstance(d, str) and d in dyn}
        if a:
            axes[name] = a
        shapes.append({i: dims[d] for i, d in a.items()} or None)
    return axes, tuple(shapes)


def short(e):
    """The innermost cause of an exception (torch.onnx wraps the real error in boilerplate)."""
    chain = [e]
    while (chain[-1].__cause__ or chain[-1].__context__) is not None and len(chain) < 10:
        chain.append(chain[-1].__cause__ or chain[-1].__context__)
    inner = chain[-1]
    s = f"{type(inner).__name__}: {inner}"
    if inner is not e:
        s = f"{type(e).__name__} <- " + s
    s = re.sub(r"\x1b\[[0-9;]*m", "", s)
    s = re.sub(r"\s+", " ", s)
    return s if len(s) <= 600 else s[:400] + " ... " + s[-200:]


def do_export(sp, exporter, path, q):
    """Runs in a forked child: build, export, report through q."""
    import torch

    torch.set_num_threads(1)
    torch.manual_seed(0)
    # nn.MultiheadAttention's inference fast path is one aten op that the TorchScript
    # exporter cannot convert (torchvision's ViT); the slow path is the same math.
    torch.backends.mha.set_fastpath_enabled(False)
    warnings.filterwarnings("ignore")
    t0 = time.time()
    all_dyn = sorted({d for inp in sp["inputs"].values() for d in inp["dims"] if isinstance(d, str)})
    tries = [all_dyn]
    if sp["fallback"] and exporter == "dyn":
        tries.append(sorted(set(sp["fallback"]) & set(all_dyn)))
    try:
        model = wrap(sp["build"](), sp)
        binding = {k: EXPORT_SIZES[k] for k in all_dyn}
        args = example_inputs(sp, binding)
        with torch.no_grad():
            model(*args)  # the model runs eagerly at all
        errors = []
        for dyn in tries:
            axes, shapes = dim_specs(sp, dyn)
            names = list(sp["inputs"])
            try:
                if exporter == "ts":
                    with torch.no_grad():
                        torch.onnx.export(model, args, str(path), dynamo=False, opset_version=17,
                                          input_names=names, dynamic_axes=axes, do_constant_folding=True)
                else:
                    prog = torch.onnx.export(model, args, dynamo=True, opset_version=18, input_names=names,
                                             dynamic_shapes=shapes, verbose=False)
                    prog.save(str(path))
                note = "" if dyn == all_dyn else f"fell back to dynamic {dyn} (full set failed: {errors[0]})"
                q.put({"ok": True, "seconds": round(time.time() - t0, 2), "dynamic": dyn, "note": note})
                return
            except Exception as e:  # noqa: BLE001 - every failure is logged
                errors.append(short(e))
        q.put({"ok": False, "seconds": round(time.time() - t0, 2), "error": " || ".join(errors)})
    except Exception as e:  # noqa: BLE001
        q.put({"ok": False, "seconds": round(time.time() - t0, 2), "error": short(e),
               "trace": traceback.format_exc()[-1500:]})


def run_one(sp, exporter, out, timeout):
    suffix = "ts17" if exporter == "ts" else "dyn18"
    fname = f"{sp['name']}_{suffix}.onnx"
    path = out / fname
    ctx = mp.get_context("fork")
    q = ctx.Queue()
    p = ctx.Process(target=do_export, args=(sp, exporter, path, q))
    p.start()
    res = None
    t0 = time.time()
    while time.time() - t0 < timeout:
        try:
            res = q.get(timeout=1)
            break
        except Exception:  # noqa: BLE001 - queue.Empty
            if not p.is_alive() and q.empty():
                break
    p.join(5)
    if p.is_alive():
        p.kill()
        p.join()
    if res is None:
        res = {"ok": False, "error": f"timeout after {timeout}s" if p.exitcode is None or p.exitcode < 0 and
               time.time() - t0 >= timeout else f"export process died (exit code {p.exitcode})"}
    entry = {"ok": res["ok"], "arch": sp["name"], "family": sp["family"],
             "exporter": "torchscript" if exporter == "ts" else "torch.export",
             "opset": 17 if exporter == "ts" else 18, "recipe": sp["recipe"],
             "inputs": {k: {"dims": v["dims"], "dtype": v["dtype"], "fill": v["fill"]}
                        for k, v in sp["inputs"].items()},
             "bindings": sp["bindings"]}
    for k in ("seconds", "dynamic", "note", "error"):
        if res.get(k):
            entry[k] = res[k]
    if res["ok"]:
        import onnx

        m = onnx.load(str(path), load_external_data=False)
        entry["nodes"] = len(m.graph.node)
        entry["file_kb"] = path.stat().st_size // 1024
        entry["declared_inputs"] = {
            i.name: [d.dim_param if d.HasField("dim_param") else (d.dim_value if d.HasField("dim_value") else None)
                     for d in i.type.tensor_type.shape.dim]
            for i in m.graph.input if i.name not in {t.name for t in m.graph.initializer}}
    elif path.exists():
        path.unlink()
    return fname, entry


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="/work/zoo/models")
    ap.add_argument("--only", default="", help="comma-separated architecture names")
    ap.add_argument("--exporters", default="ts,dyn")
    ap.add_argument("--force", action="store_true")
    ap.add_argument("--list", action="store_true")
    ap.add_argument("--timeout", type=float, default=600)
    a = ap.parse_args()
    if a.list:
        for n, s in SPECS.items():
            print(f"{n:34} {s['family']:12} {s['recipe']}")
        return
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    log_path = out / "export_log.json"
    log = json.loads(log_path.read_text()) if log_path.exists() else {}
    only = [x for x in a.only.split(",") if x]
    unknown = [x for x in only if x not in SPECS]
    if unknown:
        sys.exit(f"unknown architectures: {unknown}")
    # Import once in the parent so each forked child starts warm.
    import torch  # noqa: F401
    import torchvision  # noqa: F401
    import transformers  # noqa: F401
    import onnxscript  # noqa: F401

    for name, sp in SPECS.items():
        if only and name not in only:
            continue
        for exporter in a.exporters.split(","):
            fname = f"{name}_{'ts17' if exporter == 'ts' else 'dyn18'}.onnx"
            if not a.force and (out / fname).exists() and log.get(fname, {}).get("ok"):
                continue
            fname, entry = run_one(sp, exporter, out, a.timeout)
            log[fname] = entry
            status = "ok" if entry["ok"] else "FAILED: " + entry.get("error", "")[:300]
            extra = f" ({entry['note'][:120]})" if entry.get("note") else ""
            print(f"{fname:48} {entry.get('seconds', 0):6.1f}s {status}{extra}", flush=True)
            log_path.write_text(json.dumps(dict(sorted(log.items())), indent=1) + "\n")
    oks = [k for k, v in log.items() if v["ok"]]
    print(f"{len(oks)} ok, {len(log) - len(oks)} failed; log {log_path}")


if __name__ == "__main__":
    main()
