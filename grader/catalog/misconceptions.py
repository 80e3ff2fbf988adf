"""The named learner mistakes the grader recognises, with the hint each one earns.

Scenarios say how to re-run the reference with a mistake switched on; this module only holds the
words shown to the learner, so that every exercise names a mistake the same way.
"""

from __future__ import annotations

from dataclasses import dataclass

from grader.answers.discrete import TRANSPOSED
from grader.texts import N_


@dataclass(frozen=True)
class Misconception:
    """A mistake's id, a short phrase completing 'the answer you get with …', and a hint."""

    name: str
    title: str
    hint: str


_ALL = [
    Misconception("sample-variance", N_("the sample variance (dividing by d − 1)"),
                  N_("LayerNorm divides the squared deviations by d, the number of entries in the row, "
                     "not by d − 1: it describes this row, it does not estimate a population.")),
    Misconception("no-centering", N_("the mean left in (RMS instead of LayerNorm)"),
                  N_("LayerNorm first subtracts the row mean μ, then divides by σ. Dividing h by its "
                     "root mean square is RMSNorm, a different normalisation.")),
    Misconception("normalise-x", N_("the second LayerNorm applied to x instead of h"),
                  N_("The second sub-layer reads LN(h), where h = x + a already includes the attention "
                     "output. Normalise h, not the block's input x.")),
    Misconception("no-residual-attention", N_("the first residual forgotten (h = a)"),
                  N_("The attention output is a correction: h = x + a. Keep the token's own vector.")),
    Misconception("no-residual-mlp", N_("the second residual forgotten (y = m)"),
                  N_("The MLP output is added to the stream: y = h + m, not y = m.")),
    Misconception("no-residual", N_("the residual forgotten"),
                  N_("Each sub-layer's output is added to the vector it read: keep the stream.")),
    Misconception("relu", N_("ReLU in place of GELU"),
                  N_("GELU is not max(0, z): negative inputs give small negative outputs, and positive "
                     "ones are slightly damped. Use ½z(1 + tanh(0.798(z + 0.0447z³))).")),
    Misconception("erf-gelu", N_("the exact (erf) GELU instead of GPT-2's tanh form"),
                  N_("GPT-2 uses the tanh approximation of GELU; the erf form differs in the third "
                     "decimal for some inputs.")),
    Misconception("gelu-no-half", N_("GELU without its leading ½"),
                  N_("GELU is ½z(1 + tanh(…)): without the ½ every output is twice what it should be.")),
    Misconception("residual-from-x", N_("the second residual added to x instead of h"),
                  N_("The stream the MLP adds to is h = x + a, which already holds the attention output: "
                     "y = h + m.")),
    Misconception("no-norm-before-mlp", N_("the MLP fed h itself instead of LN(h)"),
                  N_("Pre-LN: the MLP reads the normalised row u′ = (h − μ)/σ; h itself only comes back in the "
                     "residual.")),
    Misconception("subtracted-residual", N_("a subtracted instead of added (h = x − a)"),
                  N_("The residual adds the attention output to the row, entry by entry: h = x + a.")),
    Misconception("variance-not-sigma", N_("the variance instead of its square root σ"),
                  N_("σ is the square root of the variance (plus ε): σ = √(var + ε).")),
    Misconception("scale-dh", N_("scores divided by d_h instead of √d_h"),
                  N_("Attention scores are divided by the square root of the head size.")),
    Misconception("no-causal-mask", N_("no causal mask"),
                  N_("A token may only attend to itself and earlier tokens: add −∞ above the diagonal "
                     "before the softmax.")),
    Misconception("no-scaling", N_("the scores not divided by √d_h"),
                  N_("Divide every dot product q·k by √d_h before the softmax; without it the weights come "
                     "out too sharp.")),
    Misconception("softmax-over-columns", N_("the softmax taken down each column"),
                  N_("Each token's weights over the tokens it reads form a row of A, and each row adds up "
                     "to 1: take the softmax along the rows.")),
    Misconception("all-rows-change", N_("every row changing"),
                  N_("With the causal mask, token i only reads tokens 1 to i: rows before the changed token "
                     "never see it.")),
    Misconception("only-row-j", N_("only the changed token's row changing"),
                  N_("Attention carries the change forward: every later token reads the changed token's key "
                     "and value, so its row changes too.")),
    Misconception("scaled-output", N_("the normalised row scaled by the same factor"),
                  N_("A norm divides by the row's own spread, which scales with the row: LN(c·h) = LN(h) "
                     "up to ε. Only the residual stream keeps the factor.")),
    Misconception("output-unscaled", N_("the block output left at the old scale"),
                  N_("LayerNorm rescales only the copy the MLP reads; the residual adds m to the scaled row "
                     "itself, so y keeps the factor.")),
    Misconception("eps-ignored", N_("ε left out of the square root"),
                  N_("When the row is tiny its mean square is comparable to ε, and ε in √(ms + ε) "
                     "shrinks the output: keep it.")),
    Misconception("full-kv-heads", N_("a full set of K/V heads instead of GQA"),
                  N_("With grouped-query attention W_K and W_V only produce h_kv heads of size d_h, "
                     "so each is d × (h_kv·d_h), not d × d.")),
    Misconception("ffn-4d", N_("a hidden width of 4d instead of the SwiGLU width"),
                  N_("A SwiGLU FFN has three matrices instead of two, so its hidden width is about 8d/3, "
                     "not 4d, and the three cost what two did: 8d/3 rounded to the nearest multiple of "
                     "256 when d ≥ 256, and rounded down to a whole number when d < 256.")),
    Misconception("forget-layers", N_("only one layer counted"),
                  N_("The model stacks L identical blocks: multiply the per-block figure by L.")),
    Misconception("norms-of-one-layer", N_("the norms of one layer only"),
                  N_("Each of the L layers normalises twice, once before each sub-block, and the "
                     "embedding is normalised once before the first layer: 1 + 2L in all.")),
    Misconception("weight-in-out", N_("the matrix written [n_in][n_out]"),
                  N_("microGPT stores each weight matrix as [n_out][n_in], one row per output: mlp_fc1 "
                     "widens n_embd to 4·n_embd, so it is (4·n_embd, n_embd), and mlp_fc2 is the reverse.")),
    Misconception("count-biases", N_("biases counted"),
                  N_("No linear layer here has a bias, and RMSNorm has no β: count the weight matrices, "
                     "plus the norm gains where the model has them (microGPT's RMSNorm has no weights "
                     "at all).")),
    Misconception("kv-not-repeated", N_("K and V before the GQA repeat"),
                  N_("After grouping, each K/V head is repeated so every query head has one: the "
                     "tensor used in the scores has h heads.")),
    Misconception("swiglu-floor", N_("8d/3 rounded down to a multiple of 256"),
                  N_("Round 8d/3 to the nearest multiple of 256, which can be upwards.")),
    Misconception("swiglu-ceil", N_("8d/3 rounded up to a multiple of 256"),
                  N_("Some reference code (Llama's) rounds 8d/3 up to the next multiple of 256; here it is "
                     "rounded to the nearest one, which can be downwards.")),
    Misconception("swiglu-unrounded", N_("8d/3 without rounding to a multiple of 256"),
                  N_("For d ≥ 256 the width 8d/3 is rounded to a multiple of 256 for fast kernels.")),
    Misconception("one-norm", N_("one RMSNorm per block"),
                  N_("A pre-norm block normalises twice, before attention and before the FFN, and each "
                     "RMSNorm has its own gain vector of d parameters.")),
    Misconception("norm-without-gain", N_("RMSNorm counted without parameters"),
                  N_("This RMSNorm scales its output by a learned gain vector of d entries (microGPT's "
                     "has none, Llama's has one), so each norm holds d parameters.")),
    Misconception("attention-share", N_("the attention share instead of the FFN share"),
                  N_("The question asks for the feed-forward layer's part of the large matrices.")),
    Misconception("two-matrix-ffn", N_("two FFN matrices, not SwiGLU's three"),
                  N_("SwiGLU has three FFN matrices: the gate W1 and the up-projection W3 (d × f each), and "
                     "the down-projection W2 (f × d).")),
    Misconception("no-wo", N_("W_O left out of the attention count"),
                  N_("After the heads are put back together, attention applies one more matrix, the output "
                     "projection W_O (d × d): count it with W_Q, W_K and W_V.")),
    Misconception("heads-not-split", N_("the heads not split out (n × d)"),
                  N_("Q, K and V are split into heads before the scores: one n × d_h matrix per head, "
                     "h × n × d_h in all.")),
    Misconception("heads-not-first", N_("tokens before heads, (n, h, d_h)"),
                  N_("(n, h, d_h) is Q right after the reshape. Each head then works on its own n × d_h "
                     "matrix, so the head axis is moved to the front: (h, n, d_h), and the scores are "
                     "(h, n, n).")),
    Misconception("head-size-d", N_("each head given the full width d instead of d_h = d / h"),
                  N_("The heads share the width: each is d_h = d / h wide, so Q is h × n × d_h, not h × n × d.")),
    Misconception("scores-without-heads", N_("the head axis left out of the scores"),
                  N_("Every query head computes its own n × n scores: the tensor is h × n × n.")),
    Misconception("one-ffn-matrix", N_("only one FFN matrix counted"),
                  N_("The FFN has two big matrices: W1 (d × d_ff) and W2 (d_ff × d).")),
    Misconception("keys-as-values", N_("the firing keys added up instead of their values"),
                  N_("The keys only decide how strongly each memory fires; what is written is the values: "
                     "Σ ReLU(kᵢ·x) vᵢ.")),
    Misconception("fires-on-negative", N_("keys with a negative score taken as firing"),
                  N_("A key fires when its score kᵢ·x is positive: ReLU keeps positives and zeroes the "
                     "rest.")),
    Misconception("no-activation", N_("the activation left out"),
                  N_("Each value is weighted by f(kᵢ·x) = max(0, kᵢ·x), not by the raw score: keys "
                     "with negative scores contribute nothing.")),
    Misconception("unweighted-values", N_("each firing value added at full strength"),
                  N_("A firing key scales its value by its score f(kᵢ·x); values are not simply summed.")),
    Misconception("zero-based", N_("0-based numbering"),
                  N_("Number keys and inputs from 1, as the prompt does.")),
    Misconception("all-inputs-change", N_("every input changing"),
                  N_("Editing value vⱼ only changes outputs for inputs whose key kⱼ fires.")),
    Misconception("edit-ignored", N_("the value before the edit"),
                  N_("Use the edited value vector for the inputs whose key fires.")),
    Misconception("forget-initial-norm", N_("microGPT's initial RMSNorm missed"),
                  N_("microGPT normalises the embedding once before the first block, then once per "
                     "sub-block.")),
    Misconception("extra-final-norm", N_("a final RMSNorm before lm_head counted"),
                  N_("GPT-2 normalises once more before its output layer (ln_f); microGPT does not: the "
                     "last residual add goes straight into lm_head.")),
    Misconception("tied-head", N_("lm_head not counted"),
                  N_("microGPT keeps lm_head as its own vocab × n_embd matrix; it is not tied to wte.")),
    Misconception("inside-share", N_("the share inside the block instead of outside it"),
                  N_("The question asks for the embeddings and lm_head, the parts outside the block.")),
    Misconception("kv-cache-all-heads", N_("a cache of all h heads instead of the h_kv K/V heads"),
                  N_("With grouped-query attention only the h_kv key/value heads are computed and cached: "
                     "per block and token the cache holds 2·h_kv·d_h numbers, not 2·d.")),
    Misconception("kv-cache-one-tensor", N_("only the keys (or only the values) counted"),
                  N_("Every block caches both the keys and the values of each token: count two tensors, "
                     "and both W_K and W_V.")),
    Misconception("bits-for-bytes", N_("bits counted as bytes"),
                  N_("A 16-bit float takes 2 bytes: divide the number of bits by 8 to get bytes.")),
    Misconception("tied-embeddings", N_("the output layer tied to the embedding table"),
                  N_("Llama 3 8B keeps its output layer as its own vocabulary × d matrix, separate from the "
                     "token embedding: count both.")),
    Misconception("relu-gate", N_("ReLU in place of SiLU on the gate"),
                  N_("SwiGLU's gate is SiLU, z·σ(z): a negative input gives a small negative number, not 0, "
                     "and a positive one is slightly damped.")),
    Misconception("gate-on-value", N_("SiLU applied to the value branch instead of the gate"),
                  N_("SiLU goes on xW₁, the gate; xW₃ is the value and passes through unchanged: "
                     "h = SiLU(xW₁) ⊙ xW₃.")),

    Misconception("bias-ignored", N_("the bias b₁ left out"),
                  N_("The bias is added to every key's score before the ReLU: h = max(0, xW₁ + b₁). A negative "
                     "bias raises a key's threshold, a positive one lowers it.")),
    Misconception("forgot-other-keys", N_("the other firing keys left out of the edit"),
                  N_("Input p fires other keys too, and their values stay in its output: solve "
                     "hⱼ·vⱼ = target − Σᵢ≠ⱼ hᵢ·vᵢ, not hⱼ·vⱼ = target.")),
    Misconception("edited-key", N_("the key kⱼ rewritten instead of the value vⱼ"),
                  N_("The edit writes a new value vⱼ and leaves the key kⱼ alone, so an input's output changes "
                     "exactly when kⱼ fires on it (kⱼ·x > 0). Rewriting the key would change which inputs "
                     "fire instead.")),
    Misconception("layernorm-for-rmsnorm", N_("LayerNorm in place of RMSNorm"),
                  N_("microGPT's rmsnorm does not subtract the mean: it divides x by √(mean(x²) + 10⁻⁵).")),
    Misconception("log-base-10", N_("a base-10 logarithm"),
                  N_("Cross-entropy uses the natural logarithm: a uniform guess over V tokens costs ln V.")),
    Misconception("flops-n-not-2n", N_("N FLOPs per token instead of 2N"),
                  N_("Every weight takes part in one multiplication and one addition per token, so a forward "
                     "pass costs about 2N FLOPs.")),
    Misconception("training-forward-only", N_("training costed as a forward pass"),
                  N_("The backward pass costs about twice the forward pass (gradients for the activations and "
                     "for the weights), so a training step costs about 6N FLOPs per token.")),
    Misconception("adam-no-second-moment", N_("Adam's second moment v left out"),
                  N_("Adam keeps two buffers for every parameter, the first moment m and the second moment v, "
                     "besides the weight itself: three numbers per parameter.")),
    Misconception("gb-for-gib", N_("GB (10⁹ bytes) in place of GiB (2³⁰ bytes)"),
                  N_("A GiB is 2³⁰ = 1,073,741,824 bytes. Dividing by 10⁹ gives gigabytes, about 7 % more.")),
    Misconception("mib-for-gib", N_("MiB (2²⁰ bytes) in place of GiB"),
                  N_("Divide the bytes by 2³⁰ for GiB; dividing by 2²⁰ gives MiB, 1024 times as many.")),
    Misconception("kv-cache-one-layer", N_("the cache of one block only, not of all L"),
                  N_("Every block keeps its own keys and values: multiply what one block stores by L.")),
    Misconception("final-norm-forgotten", N_("the final RMSNorm before the output layer left out"),
                  N_("After the last block the model normalises once more, with a gain of its own: d more "
                     "parameters.")),
    Misconception("kv-width-full-d", N_("K/V heads as wide as d instead of d_h"),
                  N_("Each K/V head has the head width d_h = d / n_head, so W_K and W_V are d × n_kv_head·d_h.")),
    Misconception("sigmoid-gate", N_("σ(xW₁) as the gate, without SiLU's factor xW₁"),
                  N_("SiLU(z) = z·σ(z): multiply the sigmoid by its own input.")),
    Misconception("o2-from-row-3", N_("the third row of A (token 3's weights) used for o₂"),
                  N_("o₂ is the second token's output: mix the values with the second row of A.")),
    Misconception("o2-from-row-1", N_("the first row of A used for o₂"),
                  N_("Rows of A are numbered from 1: o₂ uses row 2, the second token's weights.")),
    Misconception("output-times-ten", N_("the whole output scaled by 10 (y′ = 10y = 10h + 10m)"),
                  N_("Only the stream scales: y′ = 10h + m. The MLP reads LN(10h), which is LN(h), so it "
                     "returns the same m, not 10m.")),
    Misconception("rows-after-j", N_("only the rows after j, without row j itself"),
                  N_("Row j reads token j itself, so it changes too.")),
    Misconception("rows-up-to-j", N_("rows 1 to j (the mask read the wrong way round)"),
                  N_("Under a causal mask a row reads only tokens up to its own: token j reaches rows j to n, "
                     "not the rows before it.")),
    Misconception("rows-before-j", N_("only the rows before j (the change sent backwards, row j left out)"),
                  N_("Row j reads its own token, so it always changes, and only the rows after it read token j: "
                     "the change travels forward, to rows j to n.")),
    Misconception("training-backward-only", N_("training costed as the backward pass alone (4N)"),
                  N_("A training step runs the forward pass and then the backward pass: 2N + 4N = 6N FLOPs per "
                     "token.")),
    Misconception("training-8n", N_("8N FLOPs per token for training instead of 6N"),
                  N_("The backward pass costs about twice the forward pass, 4N, not 6N: forward and backward "
                     "together make 2N + 4N = 6N.")),
    Misconception("flops-for-gflops", N_("FLOPs given where GFLOPs are asked"),
                  N_("A GFLOP is 10⁹ FLOPs: divide the count of FLOPs by 10⁹.")),
    Misconception("adam-with-gradients", N_("the gradients counted with Adam's state (4P)"),
                  N_("The question leaves the gradients out: the weights and Adam's two moments make 3P "
                     "numbers.")),
    Misconception("log-base-2", N_("a base-2 logarithm"),
                  N_("Cross-entropy uses the natural logarithm: a uniform guess over V tokens costs ln V; "
                     "log₂ V is the same loss counted in bits.")),
    Misconception("loss-is-probability", N_("the probability 1/V given as the loss"),
                  N_("The loss is minus the logarithm of that probability: −ln(1/V) = ln V.")),
    Misconception("rms-no-sqrt", N_("mean(x²) + ε without its square root"),
                  N_("RMSNorm divides by the root mean square: take the square root of mean(x²) + ε.")),
    Misconception("swiglu-floor-128", N_("8d/3 rounded down to a multiple of 128"),
                  N_("Round 8d/3 to the nearest multiple of 256, as the prompt asks: here that is upwards.")),
    Misconception("swiglu-count-unrounded", N_("the SwiGLU count with f not rounded (the classic 8d² again)"),
                  N_("Count the matrices at the width the layer really has, f rounded to a multiple of 256; "
                     "with 8d/3 itself the count is just the classic FFN's 8d².")),
    Misconception(TRANSPOSED.name, TRANSPOSED.title, TRANSPOSED.hint),
]  # fmt: skip

MISCONCEPTIONS: dict[str, Misconception] = {m.name: m for m in _ALL}


def known_words(name: str) -> tuple[str, str]:
    """A named mistake's title and hint (KeyError for a name the catalogue does not know)."""
    known = MISCONCEPTIONS[name]
    return known.title, known.hint
