"""The key names the seed documents (../shared/seeds/) recommend and warn against.

Each example carries a ``quote``: text that appears in the seed as written
(the key itself, or the template or call it was made from), so a test can
check that the list keeps to what the seeds say. Examples that fill in a
template say which template.

Choices where the seeds disagree or are unclear:

* Seed 000 lists ``user_1000_profile`` as a (less common) delimiter style but
  calls ``john_email`` and ``product_SKU123_name`` flat (anti-pattern 4). The
  two have the same shape, so rdbscope follows the anti-pattern by default and
  the underscore style is linted with ``_`` as a namespace delimiter (a NAM008
  option).
* Seed 002's split-key example ``video_info#olympic#2020-08-29#1`` is 31 bytes,
  one over its own 30-byte recommendation; NAM007 is opt-in for that reason
  among others, and seed 002's keys are checked with the default selection.
* Seed 000's ``cache:expensive:query`` without a TTL is a TTL finding (TTL002,
  an analysis pass), selected explicitly.
* Key names shown only to illustrate commands (``mykey``, ``hotkey``,
  ``big_hash``, ``articles``) are neither recommended nor warned against and
  are left out.
"""

from dataclasses import dataclass, field


@dataclass(frozen=True)
class Keyspace:
    """Keys a seed recommends together (one block of the seed)."""

    seed: str
    title: str
    keys: tuple
    quotes: tuple  # text of the seed each key comes from (same order as keys)
    options: dict = field(default_factory=dict)  # rule options the example needs (see module doc)
    presets: tuple = ()  # presets under which the keyspace must stay clean too


@dataclass(frozen=True)
class BadExample:
    """A key a seed warns against, and the codes lint must report for it."""

    seed: str
    key: str
    quote: str
    codes: frozenset
    select: tuple = ()  # extra selection: codes, or a preset name


def _same(*keys):
    return tuple(keys), tuple(keys)


GOOD = (
    Keyspace("000", "colon-separated delimiters", *_same(
        "user:1000:profile", "order:2024:01:15:ABC123", "cache:api:users:list")),
    Keyspace("000", "dot-separated delimiters", *_same("user.1000.profile", "config.app.settings")),
    Keyspace("000", "underscore delimiters", *_same("user_1000_profile"),
             options={"NAM008": {"namespace_delimiters": [":", "/", "|", "#", ".", "_"]}}),
    Keyspace("000", "recommended format {object-type}:{identifier}:{sub-object}", *_same(
        "user:1000", "user:1000:profile", "user:1000:sessions", "order:ABC123", "order:ABC123:items",
        "cache:products:category:5")),
    Keyspace("000", "key design patterns, namespacing and the good side of the anti-patterns", (
        "product:SKU123", "user:1000:orders", "user:1000:roles", "role:admin:users",
        "index:user:email:john@example.com", "index:user:username:johndoe", "index:user:country:US",
        "index:user:country:UK", "counter:global:page_views", "counter:global:signups",
        "counter:user:1000:logins", "counter:product:SKU123:views", "counter:daily:2024-01-15:orders",
        "counter:hourly:2024-01-15:10:requests", "cache:api:products:1a2b3c4d",
        "session:550e8400-e29b-41d4-a716-446655440000", "lock:order:ORD123", "app1:user:1000", "app2:user:1000",
        "dev:user:1000", "staging:user:1000", "prod:user:1000", "tenant:acme:config:api_key",
        "tenant:globex:config:api_key", "cache:url:a1b2c3d4e5f6", "key:mappings:urls", "user:john",
        "user:john:orders", "user:1000:profile:data", "job:ABC123:temp:results", "app:myapp:config:database",
        "_schema:keys",
    ), (
        "product:SKU123", "user:{user_id}:orders", "user:{user_id}:roles", "role:admin:users",
        "index:user:email:john@example.com", "index:user:username:johndoe", "index:user:country:US",
        "index:user:country:UK", "counter:global:page_views", "counter:global:signups",
        "counter:user:{user_id}:logins", "counter:product:{product_id}:views", "counter:daily:{today}:orders",
        "counter:hourly:", "cache:{source}:{identifier}:{params_hash}", "session:{session_id}",
        "lock:{resource}:{identifier}", "app1:user:1000", "app2:user:1000", "dev:user:1000",
        "staging:user:1000", "prod:user:1000", "tenant:acme:config:api_key", "tenant:globex:config:api_key",
        "cache:url:a1b2c3d4e5f6", "key:mappings:urls", "user:john", "user:john:orders", "user:1000:profile:data",
        "job:ABC123:temp:results", "app:myapp:config:database", "_schema:keys",
    )),
    Keyspace("000", "e-commerce application", (
        "product:1001", "product:1001:reviews", "product:1001:rating", "index:product:category:7",
        "index:product:brand:acme", "user:1000", "user:1000:cart", "user:1000:wishlist", "user:1000:orders",
        "session:9b2f6c1e-6d4a-4f43-9a51-2a1f0c3b7d88", "order:5001", "order:5001:items",
        "order:5001:status:history", "inventory:1001", "inventory:1001:reserved", "lock:inventory:1001",
        "cache:product:1001", "cache:category:7:products", "cache:search:9f86d081",
    ), (
        "product:{id}", "product:{id}:reviews", "product:{id}:rating", "index:product:category:{cat_id}",
        "index:product:brand:{brand}", "user:{id}", "user:{id}:cart", "user:{id}:wishlist", "user:{id}:orders",
        "session:{session_id}", "order:{id}", "order:{id}:items", "order:{id}:status:history",
        "inventory:{product_id}", "inventory:{product_id}:reserved", "lock:inventory:{product_id}",
        "cache:product:{id}", "cache:category:{id}:products", "cache:search:{query_hash}",
    )),
    Keyspace("000", "social media application", (
        "user:1000:followers", "user:1000:following", "user:1000:posts", "user:1000:notifications", "post:42",
        "post:42:likes", "post:42:comments", "post:42:shares", "feed:user:1000", "feed:global:trending",
        "index:hashtag:redis", "index:mention:1000", "presence:user:1000", "typing:77:1000",
    ), (
        "user:{id}:followers", "user:{id}:following", "user:{id}:posts", "user:{id}:notifications", "post:{id}",
        "post:{id}:likes", "post:{id}:comments", "post:{id}:shares", "feed:user:{id}", "feed:global:trending",
        "index:hashtag:{tag}", "index:mention:{user_id}", "presence:user:{id}",
        "typing:{conversation_id}:{user_id}",
    )),
    Keyspace("000", "analytics application", (
        "counter:pageviews:2024-01-15", "counter:pageviews:2024-01-15:home", "counter:events:signup:2024-01-15",
        "timeseries:cpu:web01", "timeseries:memory:web01", "timeseries:requests:api", "agg:hourly:cpu:2024-01-15:10",
        "agg:daily:cpu:2024-01-15", "unique:visitors:2024-01-15", "unique:users:search:2024-01-15",
        "leaderboard:scores:daily:2024-01-15", "leaderboard:scores:alltime",
    ), (
        "counter:pageviews:{date}", "counter:pageviews:{date}:{page_id}", "counter:events:{event_type}:{date}",
        "timeseries:cpu:{server_id}", "timeseries:memory:{server_id}", "timeseries:requests:{endpoint}",
        "agg:hourly:{metric}:{date}:{hour}", "agg:daily:{metric}:{date}", "unique:visitors:{date}",
        "unique:users:{feature}:{date}", "leaderboard:scores:daily:{date}", "leaderboard:scores:alltime",
    )),
    Keyspace("001", "specification examples", *_same(
        "user:profile:id:12345", "order:status:order_id:98765", "product:inventory:item_id:67890",
        "chat:messages:list:room_id:56789", "user:profile:hash:id:12345", "product:categories:set:item_id:67890",
        "leaderboard:score:zset:game_id:11111", "order:summary:date:20241122",
        "session:token:uid:abc123:ts:1692806400", "user:session:uid:abc123", "chat:messages:list:room_id:12345",
        "leaderboard:score:zset:game_id:1"), presets=("layered-names",)),
    Keyspace("002", "business identifier as prefix", *_same("AID:15:player:ranking")),
    Keyspace("002", "split keys with '#'", *_same(
        "video_info#olympic#2020-08-29#1", "video_info#olympic#2020-08-29#2")),
    Keyspace("002", "task records by month", *_same("uid:task:202209")),
    Keyspace("002", "ids split by modulo", *_same("uid#0#0", "uid#1#1", "uid#999#99")),
    Keyspace("003", "book and film schema", *_same(
        "all:sales-rank", "global:book", "book:1", "book:2", "book:3", "books:genre:popular-fiction",
        "books:genre:sci-fiction", "books:format:ebook", "books:format:paperback", "books:sales-rank",
        "global:film", "film:1", "film:2", "films:genre:comedy", "films:genre:drama", "films:format:bluray",
        "films:format:dvd", "films:sales-rank", "books:genre:mystery", "books:genre:teen",
        "books:genre:fantasy", "books:genre:romance", "books:genres")),
    Keyspace("004", "recommended patterns and the fixes the chapter shows", (
        "user:1000:profile", "user:1000:orders", "order:20240501:12345", "cache:product:SKU-9527",
        "lock:payment:order-12345", "rate:api:user:1000:v2", "leaderboard:game:101:2024W20",
        "session:abc123def456", "user:12345:profile", "ecommerce:product:123", "crm:user:456",
        "bi:report:cache:20240501", "analytics:event:20240501", "{user:1000}:profile", "{user:1000}:session",
        "user:1000:basic", "user:1000:contact", "user:1000:prefs", "user:1000:stats", "user:1000:events:202405",
        "article:42:content", "order:20240501:12346", "tag:redis:users", "tag:python:users", "user:1000:tags",
        "user:1001:tags",
    ), (
        "user:1000:profile", "user:1000:orders", "order:20240501:12345", "cache:product:SKU-9527",
        "lock:payment:order-12345", "rate:api:user:1000:v2", "leaderboard:game:101:2024W20",
        "session:abc123def456", "user:12345:profile", "ecommerce:product:123", "crm:user:456",
        "bi:report:cache:20240501", "analytics:event:20240501", "{user:1000}:profile", "{user:1000}:session",
        "user:1000:basic", "user:1000:contact", "user:1000:prefs", "user:1000:stats",
        "user:{user_id}:events:{month}", "article:{content_id}:content", "order:20240501:12346",
        "tag:redis:users", "tag:python:users", "user:1000:tags", "user:1001:tags",
    )),
)

BAD = (
    BadExample("000", "john_email", "john_email", frozenset({"NAM008"})),
    BadExample("000", "john_orders", "john_orders", frozenset({"NAM008"})),
    BadExample("000", "product_SKU123_name", "product_SKU123_name", frozenset({"NAM008"})),
    BadExample("000", "data", 'r.set("data", value)', frozenset({"NAM008", "NAM009"})),
    BadExample("000", "temp", 'r.set("temp", value)', frozenset({"NAM008", "NAM009"})),
    BadExample("000", "config", 'r.set("config", value)', frozenset({"NAM008", "NAM009"})),
    BadExample("000", "cache:https://api.example.com/v1/users?page=1&limit=100&sort=created",
               "cache:https://api.example.com/v1/users?page=1&limit=100&sort=created", frozenset({"NAM012"})),
    BadExample("000", "user:../../etc/passwd", "../../etc/passwd", frozenset({"NAM012"})),
    BadExample("000", "cache:expensive:query", 'r.set("cache:expensive:query", result)',
               frozenset({"TTL002", "TTL003"}), select=("TTL",)),
    BadExample("001", "orderStatusOrderId98765", "orderStatusOrderId98765", frozenset({"NAM002", "NAM008"})),
    BadExample("001", "orderStatusOrderId98765", "orderStatusOrderId98765",
               frozenset({"NAM002", "NAM008", "NAM014"}), select=("layered-names",)),
    BadExample("001", "usr:prf:id:12345", "usr:prf:id:12345", frozenset()),
    BadExample("001", "usr:prf:id:12345", "usr:prf:id:12345", frozenset({"NAM013"}), select=("layered-names",)),
    BadExample("001", "user:profile:personal:information:unique:identifier:12345",
               "user:profile:personal:information:unique:identifier:12345", frozenset({"NAM011"})),
    BadExample("004", "user_profile_data_for_the_user_with_id_12345_and_type_premium",
               "user_profile_data_for_the_user_with_id_12345_and_type_premium", frozenset({"NAM008"})),
    BadExample("004", "user_profile_data_for_the_user_with_id_12345_and_type_premium",
               "user_profile_data_for_the_user_with_id_12345_and_type_premium",
               frozenset({"NAM007", "NAM008"}), select=("short-keys",)),
    BadExample("004", "u:1:p", "u:1:p", frozenset({"NAM013", "NAM014"}), select=("layered-names",)),
    # The seed file holds this key as mojibake (its UTF-8 bytes read as Windows-874).
    BadExample("004", "用户:1000:档案",
               "\u0e47\u201d\u0e08\u0e46\u02c6\u0e17:1000:\u0e46\u0e01\u0e03\u0e46\u0e01\u02c6", frozenset({"NAM005"})),
)
