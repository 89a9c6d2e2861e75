"""Synthetic keyspaces with known patterns, for scoring pattern inference.

``generate(seed, n_keys)`` returns unique keys (bytes) in shuffled order and,
for each, the pattern it was made from.  Families follow the conventions of
real Redis deployments: ``:``-separated namespaces with numeric ids, typed
values, hash tags, other separators, user names and SKUs (``{*}``), and
literal siblings.  Noise keys are one-offs: each is its own group.
"""

import base64
import random
import string
import uuid

SYLLABLES = (
    "ka mi ro sa te lu na vo ri ze po da fi ne mo tu la xi be co gu he ja ki "
    "le mu no pa qui ra so ta ul ve wa yo zu an el ir on ur"
).split()
WORDS = (
    "alpha bravo charlie delta echo foxtrot golf hotel india juliet kilo lima "
    "mike november oscar papa quebec romeo sierra tango uniform victor whiskey "
    "xray yankee zulu red green blue amber teal violet silver golden river stone"
).split()
TLDS = ("com", "org", "net", "io", "co.uk", "de")

NOISE_KEYS = (
    "config", "maintenance_mode", "feature-flags", "global:pageview", "global:signups",
    "app:version", "schema.version", "leader", "migrations:done", "health",
    "temp", "data", "backup|last", "cron#nightly", "lock", "queue:jobs:high",
    "queue:jobs:low", "queue:jobs:default", "stats:zero", "ids:snowflake:shard0",
    "sensor:temps:room0", "events:empty", "leaderboard:global", "counter:global:page_views",
    "books:sales-rank", "all:sales-rank", "hotSearch:rank:1", "config:homepage",
    "coupon:activity:999", "caf\xe9:menu", "bin:\udcff\udcfetoken", "user name with spaces",
    "emoji:\U0001f600", "Tab\there", "cache:expensive:query", "metrics_enabled",
    "rate-limit-default", "last_backup_at", "system:motd", "x",
)


def _id(rng):
    return str(rng.randrange(1, 10 ** rng.randrange(1, 9)))


def _hex(rng, n):
    return "".join(rng.choice("0123456789abcdef") for _ in range(n))


def _uuid(rng):
    return str(uuid.UUID(int=rng.getrandbits(128), version=4))


def _date(rng):
    return f"{rng.randrange(2019, 2031)}{rng.randrange(1, 13):02d}{rng.randrange(1, 29):02d}"


def _dashed_date(rng):
    d = _date(rng)
    return f"{d[:4]}-{d[4:6]}-{d[6:]}"


def _week(rng):
    return f"{rng.randrange(2019, 2031)}W{rng.randrange(1, 54):02d}"


def _epoch(rng):
    return rng.randrange(1_577_836_800, 1_924_992_000)  # 2020-2031


def _ip(rng):
    return ".".join(str(rng.randrange(256)) for _ in range(4))


def _name(rng):
    name = "".join(rng.choice(SYLLABLES) for _ in range(rng.randrange(2, 4)))
    return name + (str(rng.randrange(100)) if rng.random() < 0.3 else "")


def _email(rng):
    return f"{_name(rng)}.{rng.choice(WORDS)}@{rng.choice(WORDS)}.{rng.choice(TLDS)}"


def _b64url(rng, n):
    return base64.urlsafe_b64encode(rng.randbytes(n)).decode().rstrip("=")


def _jwt(rng):
    header = base64.urlsafe_b64encode(b'{"alg":"HS256","typ":"JWT"}').decode().rstrip("=")
    payload = base64.urlsafe_b64encode(f'{{"sub":"{rng.randrange(10**6)}"}}'.encode()).decode().rstrip("=")
    return f"{header}.{payload}.{_b64url(rng, 32)}"


def _b64(rng):
    while True:
        token = base64.b64encode(rng.randbytes(rng.choice((18, 24, 30)))).decode()
        if any(c.isdigit() for c in token) and any(c.isupper() for c in token) and any(c.islower() for c in token):
            return token


def _sku_digits(rng):
    return f"SKU-{rng.randrange(1000, 100000)}"


def _sku_letter(rng):
    return f"SKU-{rng.choice('ABCDEFGH')}{rng.randrange(100000):05d}"


def _slug(rng):
    return "-".join(rng.choice(WORDS) for _ in range(rng.randrange(1, 6)))


def _word_pair(rng):
    return f"{rng.choice(WORDS)}-{rng.choice(WORDS)}"


def _domain(rng):
    return ".".join([_name(rng)] * rng.randrange(0, 2) + [rng.choice(WORDS), rng.choice(TLDS)])


_CHATTY = {}


def _chatty_user(rng):
    """A user name from a pool where a few users write most messages (Zipf-like)."""
    pool = _CHATTY.setdefault(id(rng), [])
    if not pool or rng.random() < 0.05:
        pool.append(_name(rng))
    return pool[min(int(rng.paretovariate(1.2)) - 1, len(pool) - 1)]


def _base62(rng):
    return "".join(rng.choice(string.ascii_letters + string.digits) for _ in range(12))


# (pattern, weight, make key).  Weights are relative shares of the keyspace.
FAMILIES = [
    ("user:{id}:profile", 8, lambda r: f"user:{_id(r)}:profile"),
    ("user:{id}:cart", 5, lambda r: f"user:{_id(r)}:cart"),
    ("user:{id}:orders", 5, lambda r: f"user:{_id(r)}:orders"),
    ("user:{id}:sessions", 3, lambda r: f"user:{_id(r)}:sessions"),
    ("user:{id}", 3, lambda r: f"user:{_id(r)}"),
    ("order:{date}:{id}", 5, lambda r: f"order:{_date(r)}:{_id(r)}"),
    ("order:{id}:items", 3, lambda r: f"order:{_id(r)}:items"),
    ("cache:product:SKU-{id}", 4, lambda r: f"cache:product:{_sku_digits(r)}"),
    ("cache:item:SKU-{*}", 3, lambda r: f"cache:item:{_sku_letter(r)}"),
    ("product:SKU-{*}:viewers", 2, lambda r: f"product:{_sku_letter(r)}:viewers"),
    ("lock:payment:order-{id}", 2, lambda r: f"lock:payment:order-{_id(r)}"),
    ("rate:api:user:{id}:v2", 3, lambda r: f"rate:api:user:{_id(r)}:v2"),
    ("rate:api:user:{id}:v1", 1, lambda r: f"rate:api:user:{_id(r)}:v1"),
    ("leaderboard:game:{id}:{date}", 2, lambda r: f"leaderboard:game:{_id(r)}:{_week(r)}"),
    ("session:{hex}", 6, lambda r: f"session:{_hex(r, 12)}"),
    ("{user:{id}}:cart", 2, lambda r: f"{{user:{_id(r)}}}:cart"),
    ("{user:{id}}:profile", 2, lambda r: f"{{user:{_id(r)}}}:profile"),
    ("api/v1/users/{id}/orders", 2, lambda r: f"api/v1/users/{_id(r)}/orders"),
    ("api/v1/users/{id}", 1, lambda r: f"api/v1/users/{_id(r)}"),
    ("user.{id}.settings", 2, lambda r: f"user.{_id(r)}.settings"),
    ("profile.{*}.avatar", 1, lambda r: f"profile.{_name(r)}.avatar"),
    ("tenant|{id}|quota", 1, lambda r: f"tenant|{_id(r)}|quota"),
    ("video_info#olympic#{date}#{id}", 2, lambda r: f"video_info#olympic#{_dashed_date(r)}#{_id(r)}"),
    ("uid#{id}#{id}", 1, lambda r: f"uid#{_id(r)}#{_id(r)}"),
    ("user_{id}_profile", 1, lambda r: f"user_{_id(r)}_profile"),
    ("order-{id}", 1, lambda r: f"order-{_id(r)}"),
    ("device:{uuid}:state", 3, lambda r: f"device:{_uuid(r)}:state"),
    ("rate:ip:{ip}", 2, lambda r: f"rate:ip:{_ip(r)}"),
    ("index:user:email:{email}", 2, lambda r: f"index:user:email:{_email(r)}"),
    ("auth:token:{token}", 1, lambda r: f"auth:token:{_jwt(r)}"),
    ("share:{b64}", 1, lambda r: f"share:{_b64(r)}"),
    ("event:{ts}", 2, lambda r: f"event:{_epoch(r)}"),
    ("click:{ts}:{id}", 2, lambda r: f"click:{_epoch(r) * 1000 + r.randrange(1000)}:{_id(r)}"),
    ("doc:{hex}", 2, lambda r: f"doc:{_hex(r, 24)}"),
    ("cache:query:{hex}", 2, lambda r: f"cache:query:{_hex(r, 32)}"),
    ("profile:{*}:followers", 2, lambda r: f"profile:{_name(r)}:followers"),
    ("profile:{*}:following", 2, lambda r: f"profile:{_name(r)}:following"),
    ("blog:post:{*}", 2, lambda r: f"blog:post:{_slug(r)}"),
    ("counter:page:{*}:views", 1, lambda r: f"counter:page:{_word_pair(r)}:views"),
    ("counter:daily:{date}:orders", 1, lambda r: f"counter:daily:{_dashed_date(r)}:orders"),
    ("stats:bytes:disk{id}", 1, lambda r: f"stats:bytes:disk{r.randrange(100):02d}:{_id(r)}"),
    ("notifications:user:{id}", 2, lambda r: f"notifications:user:{_id(r)}"),
    ("ecommerce:product:{id}", 1, lambda r: f"ecommerce:product:{_id(r)}"),
    ("crm:user:{id}", 1, lambda r: f"crm:user:{_id(r)}"),
    ("bi:report:cache:{date}", 1, lambda r: f"bi:report:cache:{_date(r)}"),
    ("billing:{date}:invoice:{id}", 1, lambda r: f"billing:{_date(r)[:6]}:invoice:{_id(r)}"),
    ("{*}", 1, _base62),
    ("feed:{{*}}:timeline", 1, lambda r: f"feed:{{{_name(r)}}}:timeline"),
    ("acme:user:{id}:profile", 2, lambda r: f"acme:user:{_id(r)}:profile"),
    ("globex:user:{id}:profile", 2, lambda r: f"globex:user:{_id(r)}:profile"),
    ("initech:user:{id}:profile", 1, lambda r: f"initech:user:{_id(r)}:profile"),
    ("cache:v2:user:{id}", 1, lambda r: f"cache:v2:user:{_id(r)}"),
    ("cache:v3:user:{id}", 1, lambda r: f"cache:v3:user:{_id(r)}"),
    ("cache:site:{*}", 1, lambda r: f"cache:site:{_domain(r)}"),
    ("host:web-{id}:cpu:{ts}", 1, lambda r: f"host:web-{r.randrange(1, 64):02d}:cpu:{_epoch(r)}"),
    ("metrics.{*}.latency.p99", 1, lambda r: f"metrics.{_name(r)}-{r.choice(WORDS)}.latency.p99"),
    ("metrics.{*}.latency.p50", 1, lambda r: f"metrics.{_name(r)}-{r.choice(WORDS)}.latency.p50"),
    ("chat:{*}:msgs:{id}", 3, lambda r: f"chat:{_chatty_user(r)}:msgs:{_id(r)}"),
    ("job:{id}:retry", 0.2, lambda r: f"job:{_id(r)}:retry"),
    ("ratelimit:{ip}:{date}", 1, lambda r: f"ratelimit:{_ip(r)}:{_dashed_date(r)}"),
    ("geo:{*}:stores", 1, lambda r: f"geo:{r.choice(WORDS)}_{_name(r)}:stores"),
] + [
    (f"item:{{id}}:{attribute}", 0.3, (lambda a: lambda r: f"item:{_id(r)}:{a}")(attribute))
    for attribute in ("title", "price", "stock", "rating", "reviews", "images", "tags", "brand",
                      "color", "size", "weight", "seller")
]
# stats:bytes:disk{id} keys carry a sample id too; their pattern has it.
FAMILIES = [
    (("stats:bytes:disk{id}:{id}" if p == "stats:bytes:disk{id}" else p), w, make) for p, w, make in FAMILIES
]

NOISE_SHARE = 0.002


def _encode(text):
    return text.encode("utf-8", "surrogateescape")


def generate(seed, n_keys, families=None):
    """``(keys, truth)``: unique keys as bytes, and the pattern of each.

    ``families`` defaults to :data:`FAMILIES`; the noise keys are always added.
    """
    families = FAMILIES if families is None else families
    rng = random.Random(seed)
    noise = [_encode(k) for k in NOISE_KEYS]
    total_weight = sum(w for _, w, _ in families)
    budget = n_keys - len(noise)
    keys = {k: k.decode("utf-8", "surrogateescape") for k in noise}
    for pattern, weight, make in families:
        wanted = max(1, round(budget * weight / total_weight))
        made = 0
        attempts = 0
        while made < wanted and attempts < wanted * 20:
            attempts += 1
            key = _encode(make(rng))
            if key not in keys:
                keys[key] = pattern
                made += 1
    items = list(keys.items())
    rng.shuffle(items)
    return [k for k, _ in items], [t for _, t in items]


def noise_truth(key_text):
    """Noise keys are their own group: their truth is the key itself."""
    return key_text
