"""The numbers the sources print, in one place. Every test that checks the app against the book
imports them from here.

Chapter 3 of "Build a Large Language Model (From Scratch)" (its notebook's printed tensors),
Raschka's blog post "Understanding and coding self-attention", and the "Hello shiny sun!"
example worked by hand in the chapter's lecture notes.
"""

# The book's 6-token inputs, "Your journey starts with one step".
INPUTS = [
    [0.43, 0.15, 0.89],
    [0.55, 0.87, 0.66],
    [0.57, 0.85, 0.64],
    [0.22, 0.58, 0.33],
    [0.77, 0.25, 0.10],
    [0.05, 0.80, 0.55],
]

# --- 3.3 simplified self-attention, query 2 ("journey") ---------------------------------------
JOURNEY_SCORES = [0.9544, 1.4950, 1.4754, 0.8434, 0.7070, 1.0865]
JOURNEY_NAIVE_WEIGHTS = [0.1455, 0.2278, 0.2249, 0.1285, 0.1077, 0.1656]  # scores / sum(scores)
JOURNEY_WEIGHTS = [0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581]
JOURNEY_CONTEXT = [0.4419, 0.6515, 0.5683]
ALL_CONTEXT_VECTORS = [
    [0.4421, 0.5931, 0.5790],
    [0.4419, 0.6515, 0.5683],
    [0.4431, 0.6496, 0.5671],
    [0.4304, 0.6298, 0.5510],
    [0.4671, 0.5910, 0.5266],
    [0.4177, 0.6503, 0.5645],
]

# --- "Hello shiny sun!", by hand -----------------------------------------------------------------
HELLO_INPUTS = [[0.34, 0.22, 0.54], [0.53, 0.34, 0.98], [0.29, 0.54, 0.93]]
HELLO_CONTEXT_PRINTED = [0.3992, 0.3858, 0.8610]  # hand-rounded terms
HELLO_CONTEXT_EXACT = [0.3990, 0.3854, 0.8610]  # float32, what the app shows

# --- 3.4 trainable weights ------------------------------------------------------------------------
V1_SEED_123_OUTPUT = [
    [0.2996, 0.8053],
    [0.3061, 0.8210],
    [0.3058, 0.8203],
    [0.2948, 0.7939],
    [0.2927, 0.7891],
    [0.2990, 0.8040],
]
V1_SEED_123_QUERY_2 = [0.4306, 1.4551]
V1_SEED_123_SCORES_2 = [1.2705, 1.8524, 1.8111, 1.0795, 0.5577, 1.5440]
V1_SEED_123_WEIGHTS_2 = [0.1500, 0.2264, 0.2199, 0.1311, 0.0906, 0.1820]
V2_SEED_789_OUTPUT = [
    [-0.0739, 0.0713],
    [-0.0748, 0.0703],
    [-0.0749, 0.0702],
    [-0.0760, 0.0685],
    [-0.0763, 0.0679],
    [-0.0754, 0.0693],
]
V2_SEED_789_WEIGHTS_1 = [0.1921, 0.1646, 0.1652, 0.1550, 0.1721, 0.1510]

# --- 3.5 causal attention and dropout -------------------------------------------------------------
CAUSAL_WEIGHTS_ROWS = {
    1: [0.5517, 0.4483],
    2: [0.3800, 0.3097, 0.3103],
    5: [0.1935, 0.1663, 0.1666, 0.1542, 0.1666, 0.1529],
}
DROPOUT_SEED_123_ONES = [  # torch.manual_seed(123); nn.Dropout(0.5)(torch.ones(6, 6))
    [2, 2, 0, 2, 2, 0],
    [0, 0, 0, 2, 0, 2],
    [2, 2, 2, 2, 0, 2],
    [0, 2, 2, 0, 0, 2],
    [0, 2, 0, 2, 0, 2],
    [0, 2, 2, 2, 2, 0],
]
CAUSAL_ATTENTION_SEED_123_OUTPUT = [
    [-0.4519, 0.2216],
    [-0.5874, 0.0058],
    [-0.6300, -0.0632],
    [-0.5675, -0.0843],
    [-0.5526, -0.0981],
    [-0.5299, -0.1081],
]

# --- 3.6 multi-head ------------------------------------------------------------------------------
WRAPPER_SEED_123_OUTPUT = [
    [-0.4519, 0.2216, 0.4772, 0.1063],
    [-0.5874, 0.0058, 0.5891, 0.3257],
    [-0.6300, -0.0632, 0.6202, 0.3860],
    [-0.5675, -0.0843, 0.5478, 0.3589],
    [-0.5526, -0.0981, 0.5321, 0.3428],
    [-0.5299, -0.1081, 0.5077, 0.3493],
]
EXERCISE_3_2_FIRST_ROW = [-0.5740, 0.2216]  # the wrapper with d_out = 1 per head, 2 heads
# MultiHeadAttention(3, 2, 6, 0.0, num_heads=2) after torch.manual_seed(123).
MHA_OUTPUT = [
    [0.3190, 0.4858],
    [0.2943, 0.3897],
    [0.2856, 0.3593],
    [0.2693, 0.3873],
    [0.2639, 0.3928],
    [0.2575, 0.4028],
]
GPT2_SMALL_MHA_PARAMETERS = 2_360_064  # exercise 3.3: d_in = d_out = 768, 12 heads, no qkv bias

# --- the blog post: "Life is short, eat dessert first", seed 123 --------------------------
BLOG_SENTENCE = "Life is short, eat dessert first"
BLOG_VOCABULARY = {"Life": 0, "dessert": 1, "eat": 2, "first": 3, "is": 4, "short": 5}
BLOG_IDS = [0, 4, 5, 2, 1, 3]
BLOG_EMBEDDING_ROW_0 = [
    0.3374,
    -0.1778,
    -0.3035,
    -0.5880,
    0.3486,
    0.6603,
    -0.2196,
    -0.3792,
    0.7671,
    -1.1925,
    0.6984,
    -1.4097,
    0.1794,
    1.8951,
    0.4954,
    0.2692,
]
BLOG_EMBEDDING_ROW_5 = [
    0.8768,
    1.6221,
    -1.4779,
    1.1331,
    -1.2203,
    1.3139,
    1.0533,
    0.1388,
    2.2473,
    -0.8036,
    -0.2808,
    0.7697,
    -0.6596,
    -0.7979,
    0.1838,
    0.2293,
]
BLOG_OMEGA_2 = [8.5808, -7.6597, 3.2558, 1.0395, 11.1466, -0.4800]  # d_k = 24, d_v = 28
BLOG_WEIGHTS_2 = [0.2912, 0.0106, 0.0982, 0.0625, 0.4917, 0.0458]
