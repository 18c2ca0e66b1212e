"""The texts SmolLM2's tokenizers and model are tested on (tests/test_smollm_tokenizer.py, test_smollm_reference.py,
scripts/smollm_formats.py, and the JS twin's node tests).

- PROMPTS: 24 held-out prompts the model continues (none is one of the page's presets): prose, lists, code,
  numbers, a question, another language.
- STRINGS: every string the tokenizers are compared on (over 300): the prompts, hand-picked hostile strings
  (empty, white-space runs, zero-width characters, 5,000 characters, emoji with ZWJ sequences and flags,
  right-to-left scripts, control characters and NUL, unpaired surrogates, CJK, numbers, code, special-token
  lookalikes, mixed newlines, bytes with no token of their own), English sentences, and seeded random strings
  drawn from many scripts. Surrogates appear only unpaired, so that JSON carries each string to JavaScript as it
  is (a high surrogate followed by a low one would arrive as one character).
"""
import random

PROMPTS = [
    "The quick brown fox",
    "In 1969, the first humans",
    "def fibonacci(n):",
    "The three laws of motion are",
    "My favourite recipe for pancakes starts with",
    "Water boils at",
    "Here is a list of fruits: apple, banana,",
    "The best way to learn a new language is",
    "Once there was a dragon who",
    "Q: What is the largest planet in the solar system?\nA:",
    "import numpy as np\n\nx = np.",
    "The sun rises in the",
    "Dear hiring manager,",
    "La capitale de l'Italie est",
    "2 + 2 =",
    "The weather today is",
    "A transformer model reads text by",
    "<html>\n<head>\n<title>",
    "Photosynthesis is the process by which",
    "The first step to bake bread is",
    "Shakespeare wrote",
    "SELECT name FROM users WHERE",
    "The moon is",
    "Attention is a heatmap because",
]

HOSTILE = [
    "", " ", "  ", "   ", "\t", "\n", "\r\n", "\r", " \n ", "\n\n\n", "a\n\n\nb", "  \t  x", "x    ", "    x",
    "\t\tindented\n\t\t\tmore", "line one\r\nline two\rline three\nline four\u2028line five\u2029end",
    "trailing spaces   \n   leading", " " * 300, "\n" * 100, "word " * 400,
    "a" * 5000, "ab" * 2500, ("The quick brown fox jumps over the lazy dog. " * 112)[:5000], "😀" * 1200,
    "zero\u200bwidth\u200cnon\u200djoiner\u2060joiner\ufeffbom", "\u200b", "\ufeff", "\ufeffstart with a BOM",
    "soft\u00adhyphen", "nbsp\u00a0here\u202fnarrow\u2007figure", "ideographic\u3000space", "ogham\u1680space",
    "em\u2003en\u2002thin\u2009hair\u200a", "mongolian\u180evowel separator", "next line\x85char",
    "file\x1cgroup\x1drecord\x1eunit\x1fseparators", "\x00", "a\x00b", "NUL at the end\x00", "\x00\x00\x00",
    "bell\x07 backspace\x08 escape\x1b[0m delete\x7f", "\x04\x06\x13\x14\x16\x1d", "in\x04g", "!\x04!",
    "\x01\x02\x03 controls \x0e\x0f\x10", "tab\tand\vvertical\ffeed",
    "emoji 😀 👍🏽 ❤️ 🎉", "family 👨‍👩‍👧‍👦 and couple 👩‍❤️‍👨", "flags 🇫🇷🇩🇪🇯🇵🇺🇸 🏴‍☠️ 🏳️‍🌈",
    "🏴\U000e0067\U000e0062\U000e0073\U000e0063\U000e0074\U000e007f Scotland", "keycap 1️⃣ #️⃣", "skin 👋🏻👋🏼👋🏽👋🏾👋🏿",
    "🇫", "👨‍", "\u200d", "😀😃😄😁😆😅😂🤣", "x\U00040000y", "\U0010ffff\U000f0000 private planes",
    "עברית: שלום עולם", "العربية: مرحبا بالعالم", "mixed עברית and English", "\u202eright-to-left override\u202c",
    "\u200fRLM\u200eLRM", "فارسی ۱۲۳ and ١٢٣", "Ελληνικά: ΣΟΦΙΑ σοφία", "Русский текст, ёлка",
    "日本語のテキストです。", "中文字符测试，你好！", "한국어 문장입니다", "ไทย ภาษา", "हिन्दी पाठ", "ქართული",
    "𠀀𠀁 𪜀 CJK extension B", "Ｆｕｌｌｗｉｄｔｈ　ＡＢＣ１２３", "ｶﾀｶﾅ half-width",
    "e\u0301 vs é", "\u0301combining at start", "Zalgo t̸̢e̵x̷t̴", "ﬁ ﬂ ﬃ ligatures", "İstanbul ǅ K Å",
    "12345", "3.14159 1,000,000 -42 1e-9", "½ ⅔ ² ³ ① Ⅻ", "١٢٣ ४५६ ๗๘๙", "0x1F 0b1010 1_000_000",
    "phone +1 (555) 123-4567", "2024-01-31T12:00:00Z", "$100.00 €50 £20 ¥1000", "99.9% 1/2 3:4",
    "def f(x):\n    return x ** 2\n", "for (let i = 0; i < n; i++) { sum += a[i]; }",
    "#include <stdio.h>\nint main(void) { printf(\"hi\\n\"); }", "<div class=\"x\">&amp;&lt;</div>",
    "SELECT * FROM t WHERE a <> 'b';", "{\"key\": [1, 2, {\"nested\": null}]}", "a->b => c != d === e",
    "path/to/file.py:42: error", "https://example.com/path?query=1&b=2#frag", "user@example.org",
    "<|im_start|>", "<|im_end|>", "<|endoftext|>", "<|im_start|>user\nHello<|im_end|>\n<|im_start|>assistant\n",
    "x <|im_start|>y", "  <|im_end|>  ", "<|im_start|<|im_start|>>", "<|im_start|", "|im_start|>",
    "<|IM_START|>", "< |im_start| >", "<|im_start|><|im_end|><|endoftext|>", "<repo_name>x<file_sep>y<filename>",
    "<jupyter_code>print(1)<jupyter_output>1<empty_output>", "<s> </s> [CLS] [SEP] <unk> <pad>",
    "it's 'twas I'LL we've they're I'm you'd she'll", "'s 't 're 've 'm 'll 'd", "''quoted'' \"double\" «guillemets»",
    "don't stop", "  's", "it’s curly", "!!!???...", "....", "---", "***bold***", "___", "~~~", "```python",
    "a\ud800b", "\udfff", "lone \udc00 low", "x\udc00\ud800y",
    "\ufffd replacement", "\U0001f9d1\u200d\U0001f4bb coder", "A\u030a", "Å", "ᾈ ǆ ǉ",
]

ENGLISH = [
    "The animal didn't cross the street because it was too tired.",
    "Attention lets every token look at every other token and decide how much each one matters.",
    "A small model can still write surprisingly fluent sentences.",
    "The capital of France is Paris, and the capital of Germany is Berlin.",
    "Once upon a time, a small robot named Echo set out to find a lost treasure.",
    "She sells sea shells by the sea shore.",
    "The results were stored in a table with three columns: name, age and city.",
    "Please reply by Friday, 12 March, at 5 p.m.",
    "He said, \"I'll be there at 10:30,\" but arrived at 11:15.",
    "Scaled dot-product attention divides the scores by the square root of d_k.",
    "The keys and values of earlier tokens are kept in a cache so they need not be recomputed.",
    "Nine query heads share three key/value heads in grouped-query attention.",
    "RoPE turns each pair of dimensions by an angle that grows with the position.",
    "Mr. and Mrs. Smith live at 221B Baker Street, London.",
    "What time is it?  It's half past four.",
    "I can't believe it's not butter!",
    "The U.S.A. and the U.K. signed the treaty in 1949.",
    "E = mc^2 is Einstein's most famous equation.",
    "Temperatures fell to -15°C overnight.",
    "Rock 'n' roll never dies.",
    "The model's weights take 98 MB on disk.",
    "Wait... what?!",
    "Café, naïve, résumé, and façade keep their accents.",
    "Tokenizers split words into pieces, and pieces into bytes when they must.",
    "The quick brown fox jumps over the lazy dog.",
]


def generated_strings(count=160, seed=58):
    """Seeded random strings: characters drawn from many scripts and control ranges, and shuffled words with odd
    glue between them."""
    alphabets = [range(32, 127), range(0, 32), range(0x7F, 0xA0), range(0xA0, 0x250), range(0x300, 0x370),
                 range(0x370, 0x400), range(0x400, 0x530), range(0x590, 0x700), range(0x900, 0x980),
                 range(0x2000, 0x2070), range(0x3000, 0x3100), range(0x4E00, 0x4F00), range(0xAC00, 0xAD00),
                 range(0xFF00, 0xFF70), range(0x1F300, 0x1F650), range(0x20000, 0x20020), range(0xE000, 0xE010)]
    words = ["the", "attention", "Transformer", "queries", "keys", "softmax", "naïve", "Zürich", "GPU's", "2024",
             "3.5", "x²", "—", "…", "!", "?", "(", ")", "ok", "<|im_end|>", "'s", "'ll", "日本", "😀", "\t", "\n"]
    rng = random.Random(seed)
    strings = []
    for index in range(count):
        if index % 2:
            strings.append("".join(chr(rng.choice(rng.choice(alphabets))) for _ in range(rng.randint(1, 40))))
        else:
            glue = rng.choice([" ", "  ", "", "\t", "-", "/", "\n", " \n"])
            strings.append(glue.join(rng.choice(words) for _ in range(rng.randint(1, 30))))
    return strings


STRINGS = list(dict.fromkeys(PROMPTS + HOSTILE + ENGLISH + generated_strings()))
