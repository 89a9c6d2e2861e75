#!/usr/bin/env python3
"""Write ``libraries.rdb``: a keyspace written by real job queues, caches, session stores and rate limiters.

Debian's redis-server 7.0 is started on 127.0.0.1 (the plumbing of
``make_sample_dumps.py``), then each library is driven through its normal
public API so that it writes the keys it always writes:

* Python, in this process: Celery/kombu (results backend, with task ids of
  the application's too, broker, and kombu's priority queues), RQ (jobs kept
  with ``result_ttl=-1``, some with job ids of the application's, failed jobs,
  jobs that depend on others), Django's Redis cache (``KEY_PREFIX``,
  ``VERSION``, ``TIMEOUT=None``; integers and pickles, one cache with no session
  beside it) and cache sessions, Flask-Caching (``timeout=0`` and a
  timeout), limits (fixed, moving and sliding windows), Flask-Limiter (sliding
  window counter), Dramatiq (with its results backend), Huey, Redis OM (default
  and custom prefixes, uuid primary keys), arq (jobs and results), channels_redis (groups),
  python-redis-lock (with ``expire=None`` too) and redis-py's ``Lock``;
* Node (``--node-modules DIR`` holding bullmq, bull, bee-queue, express,
  express-session, connect-redis, express-rate-limit, rate-limit-redis,
  socket.io, socket.io-client, @socket.io/redis-adapter,
  @socket.io/redis-streams-adapter, node-resque, redis and ioredis): BullMQ
  and Bull jobs without ``removeOnComplete``/``removeOnFail`` (one BullMQ queue
  under a ``prefix`` of the application's, with ``streams.events.maxLen``), BullMQ flows
  (``FlowProducer``, custom job ids, a queue with default options) and queues
  with ``removeOnComplete: 1000`` and ``removeOnComplete: {age}``, Bee-Queue,
  sessions through express-session with connect-redis, express-rate-limit with
  rate-limit-redis, the Socket.IO Redis adapter (which writes no keys), the
  Socket.IO streams adapter (its stream, and the sessions that connection state
  recovery keeps for dropped clients), and Resque's keys through node-resque
  (with delayed jobs, resque-scheduler's keys);
* Ruby, from Debian (ruby-sidekiq, ruby-rails, ruby-redis): Sidekiq queues,
  scheduled and dead jobs, and Rails' Redis cache store, written to directly
  (Rails.cache.write) and by Action View's fragment caching;
* PHP, from Debian (php-cli, php-illuminate-cache, php-illuminate-redis,
  php-illuminate-queue, php-predis): Laravel's Redis cache store and Redis
  queue, with the prefixes of the Laravel 8 skeleton's config files.

The Ruby gem Resque cannot be installed here (Debian has no package of it);
its keys are written by node-resque, a port that keeps Resque's key layout
(``evidence: "compatible library (node-resque)"`` in the truth). Laravel
Horizon is a Composer package, and no Composer registry is reachable from here;
Spring Session cannot be run here either: its Maven artifacts are not reachable
from this machine (repo.maven.apache.org does not resolve) and Debian does not
package it. Their keys are written in the shape their source gives
(``evidence: "documented shape"``), which is weaker evidence: Spring Session's
by replaying, command by command, what RedisIndexedSessionRepository (3.5.7)
sends for each save, with values that have the JDK serialization's shape only.
Stack traces are turned off in the Node and RQ steps, so that failed jobs hold
no path of the machine that ran them.
A few keys of the application's own sit beside them, including an audit log
that grows by sequential ids without a TTL.

Which library wrote each key is known by difference: the keys present after a
library ran minus those before. ``libraries.json`` holds the oracle (TYPE,
PTTL and length of every key, read from the live server before SAVE), that
attribution, and the truth table of key families the tests read: each
family's library, whether its pattern carries an id (``carries_id``), whether
its name tells the library (``told_by``: "name", or "values" where the
application chose the name) and, where the configuration decides how long its
keys stay, ``retention`` (bounded, or kept forever, with the setting).

Run by hand, never in CI (it needs the libraries installed; ``versions`` in
``libraries.json`` says which ran)::

    apt-get install redis-server ruby-sidekiq ruby-rails ruby-redis php-cli php-illuminate-cache \
        php-illuminate-redis php-illuminate-queue php-predis
    pip install celery rq django flask-caching limits dramatiq huey redis-om redis arq channels-redis \
        python-redis-lock flask-limiter
    (cd DIR/.. && npm install bullmq bull bee-queue express express-session connect-redis \
        express-rate-limit rate-limit-redis socket.io socket.io-client @socket.io/redis-adapter \
        @socket.io/redis-streams-adapter node-resque redis ioredis)
    python sample_dumps/make_library_dump.py --node-modules DIR [--out DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import subprocess
import sys
import tempfile
import uuid
import warnings
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from make_sample_dumps import RunningServer, discover_servers  # noqa: E402

BULLMQ_JOBS = 400
SEED = 18
RESQUE_EVIDENCE = "compatible library (node-resque)"


# ---------------------------------------------------------------------------
# The truth: key families, the library that writes them and the pattern each must be
# ---------------------------------------------------------------------------

#: (library, key kind, regex over the key, the pattern rdbscope must give, evidence)
FAMILIES = (
    ("Celery", "task result", r"celery-task-meta-[0-9a-f-]{36}", "celery-task-meta-{uuid}", "library"),
    ("Celery", "task result", r"celery-task-meta-invoice-\d+", "celery-task-meta-invoice-{id}", "library"),
    ("Celery", "broker queue", r"celery", "celery", "library"),
    ("Celery", "queue binding", r"_kombu\.binding\.celery", "_kombu.binding.celery", "library"),
    ("Celery", "priority queue", r"celery\x06\x16[369]", "celery\x06\x16{id}", "library"),
    ("RQ", "job", r"rq:job:[0-9a-f-]{36}", "rq:job:{uuid}", "library"),
    ("RQ", "job", r"rq:job:export-\d+", "rq:job:export-{id}", "library"),
    ("RQ", "job result", r"rq:results:[0-9a-f-]{36}", "rq:results:{uuid}", "library"),
    ("RQ", "queue", r"rq:queue:default", "rq:queue:default", "library"),
    ("RQ", "finished registry", r"rq:finished:default", "rq:finished:default", "library"),
    ("RQ", "failed registry", r"rq:failed:default", "rq:failed:default", "library"),
    ("RQ", "deferred registry", r"rq:deferred:default", "rq:deferred:default", "library"),
    ("RQ", "job dependencies", r"rq:job::[0-9a-f-]{36}:dependencies", "rq:job::{uuid}:dependencies", "library"),
    ("RQ", "job dependents", r"rq:job:[0-9a-f-]{36}:dependents", "rq:job:{uuid}:dependents", "library"),
    ("Django cache", "cache entry", r"shop:1:product:\d+:price", "shop:1:product:{id}:price", "library"),
    ("Django cache", "cache entry", r"catalog:3:category:\d+", "catalog:3:category:{id}", "library"),
    ("Django sessions", "session", r"shop:1:django\.contrib\.sessions\.cache[a-z0-9]{32}",
     "shop:1:django.contrib.sessions.cache{*}", "library"),
    ("Flask-Caching", "cache entry", r"flask_cache_user_\d+_feed", "flask_cache_user_{id}_feed", "library"),
    ("Flask-Caching", "cache entry", r"flask_cache_page_\d+", "flask_cache_page_{id}", "library"),
    ("limits", "rate-limit window", r"LIMITS:LIMITER/login/[0-9.]+/1000/1/hour",
     "LIMITS:LIMITER/login/{ip}/1000/1/hour", "library"),
    ("limits", "rate-limit window", r"LIMITS:LIMITER/search/token-\d+/100/1/minute",
     "LIMITS:LIMITER/search/token-{id}/100/1/minute", "library"),
    ("limits", "rate-limit window", r"LIMITS:\{LIMITER/api/token-\d+/100/1/minute\}",
     "LIMITS:{LIMITER/api/token-{id}/100/1/minute}", "library"),
    ("limits", "rate-limit window", r"LIMITS:\{LIMITER/[0-9.]+/search/10/1/minute\}",
     "LIMITS:{LIMITER/{ip}/search/10/1/minute}", "library"),
    ("Dramatiq", "queue", r"dramatiq:default", "dramatiq:default", "library"),
    ("Dramatiq", "queued messages", r"dramatiq:default\.msgs", "dramatiq:default.msgs", "library"),
    ("Dramatiq", "message result", r"[0-9a-f]{32}", "{hex}", "library"),
    ("Huey", "queue", r"huey\.redis\.shop", "huey.redis.shop", "library"),
    ("Huey", "results", r"huey\.results\.shop", "huey.results.shop", "library"),
    ("Redis OM", "model", r":shop\.models\.Customer:[0-9A-Z]{26}", ":shop.models.Customer:{*}", "library"),
    ("Redis OM", "model", r"shop:order:[0-9A-Z]{26}", "shop:order:{*}", "library"),
    ("Redis OM", "model", r"support:ticket:[0-9a-f-]{36}", "support:ticket:{uuid}", "library"),
    ("arq", "job", r"arq:job:[0-9a-f]{32}", "arq:job:{hex}", "library"),
    ("arq", "job result", r"arq:result:[0-9a-f]{32}", "arq:result:{hex}", "library"),
    ("arq", "queue", r"arq:queue", "arq:queue", "library"),
    ("channels_redis", "group", r"asgi:group:room_\d+", "asgi:group:room_{id}", "library"),
    ("channels_redis", "channel", r"asgispecific\.[0-9a-f]{32}!", "asgispecific.{hex}!", "library"),
    ("python-redis-lock", "lock", r"lock:report-\d+", "lock:report-{id}", "library"),
    ("python-redis-lock", "lock", r"lock:export-\d+", "lock:export-{id}", "library"),
    ("python-redis-lock", "lock signal", r"lock-signal:sync-\d+", "lock-signal:sync-{id}", "library"),
    ("redis-py Lock", "lock", r"invoice:\d+:lock", "invoice:{id}:lock", "library"),
    ("BullMQ", "job", r"bull:emails:\d+", "bull:emails:{id}", "library"),
    ("BullMQ", "completed jobs", r"bull:emails:completed", "bull:emails:completed", "library"),
    ("BullMQ", "failed jobs", r"bull:emails:failed", "bull:emails:failed", "library"),
    ("BullMQ", "event stream", r"bull:emails:events", "bull:emails:events", "library"),
    ("BullMQ", "job", r"bull:reports:report-\d+", "bull:reports:report-{id}", "library"),
    ("BullMQ", "children to run", r"bull:reports:report-\d+:dependencies", "bull:reports:report-{id}:dependencies",
     "library"),
    ("BullMQ", "children's results", r"bull:reports:report-\d+:processed", "bull:reports:report-{id}:processed",
     "library"),
    ("BullMQ", "parents waiting for children", r"bull:reports:waiting-children", "bull:reports:waiting-children",
     "library"),
    ("BullMQ", "job", r"bull:report-parts:[0-9a-f-]{36}", "bull:report-parts:{uuid}", "library"),
    ("BullMQ", "job", r"bull:thumbs:\d+", "bull:thumbs:{id}", "library"),
    ("BullMQ", "job", r"bull:digests:\d+", "bull:digests:{id}", "library"),
    ("BullMQ", "job", r"jobs:invoices:\d+", "jobs:invoices:{id}", "library"),
    ("BullMQ", "completed jobs", r"jobs:invoices:completed", "jobs:invoices:completed", "library"),
    ("BullMQ", "event stream", r"jobs:invoices:events", "jobs:invoices:events", "library"),
    ("Bull", "job", r"bull:video:\d+", "bull:video:{id}", "library"),
    ("Bee-Queue", "jobs", r"bq:thumbnails:jobs", "bq:thumbnails:jobs", "library"),
    ("express-session", "session", r"sess:[A-Za-z0-9_-]{32}", "sess:{*}", "library"),
    ("express-rate-limit", "rate-limit counter", r"rl:client-\d+", "rl:client-{id}", "library"),
    ("Sidekiq", "queue", r"queue:default", "queue:default", "library"),
    ("Sidekiq", "dead set", r"dead", "dead", "library"),
    ("Sidekiq", "scheduled set", r"schedule", "schedule", "library"),
    ("Rails cache", "cache entry", r"storefront:products/\d+/price", "storefront:products/{id}/price", "library"),
    ("Rails cache", "view fragment", r"storefront:views/products/_product:[0-9a-f]{32}/products/\d+",
     "storefront:views/products/_product:{hex}/products/{id}", "library"),
    ("Rails cache", "view fragment", r"storefront:views/products/index:[0-9a-f]{32}/product-list",
     "storefront:views/products/index:{hex}/product-list", "library"),
    ("Resque", "queue", r"resque:queue:mailers", "resque:queue:mailers", RESQUE_EVIDENCE),
    ("Resque", "failed jobs", r"resque:failed", "resque:failed", RESQUE_EVIDENCE),
    ("Resque", "delayed jobs", r"resque:delayed:\d+", "resque:delayed:{ts}", RESQUE_EVIDENCE),
    ("Resque", "delayed job timestamps",
     r'resque:timestamps:\{"class":"WelcomeMailer","queue":"mailers","args":\[\d+\]\}',
     'resque:timestamps:{"class":"WelcomeMailer","queue":"mailers","args":[{id}]}', RESQUE_EVIDENCE),
    ("Resque", "delayed schedule", r"resque:delayed_queue_schedule", "resque:delayed_queue_schedule",
     RESQUE_EVIDENCE),
    ("Laravel cache", "cache entry", r"laravel_database_laravel_cache:report:\d+",
     "laravel_database_laravel_cache:report:{id}", "library"),
    ("Laravel cache", "cache entry", r"laravel_database_laravel_cache:weather:\d+",
     "laravel_database_laravel_cache:weather:{id}", "library"),
    ("Laravel queue", "queue", r"laravel_database_queues:default", "laravel_database_queues:default", "library"),
    ("Laravel queue", "delayed jobs", r"laravel_database_queues:default:delayed",
     "laravel_database_queues:default:delayed", "library"),
    ("Socket.IO streams adapter", "event stream", r"socket\.io", "socket.io", "library"),
    ("Socket.IO streams adapter", "session", r"sio:session:[A-Za-z0-9_-]{20}", "sio:session:{*}", "library"),
    ("Laravel Horizon", "job", r"horizon:\d+", "horizon:{id}", "documented shape"),
    ("Spring Session", "session", r"spring:session:sessions:[0-9a-f-]{36}", "spring:session:sessions:{uuid}",
     "documented shape"),
    ("Spring Session", "session expiry marker", r"spring:session:sessions:expires:[0-9a-f-]{36}",
     "spring:session:sessions:expires:{uuid}", "documented shape"),
    ("Spring Session", "expiry index", r"spring:session:expirations:\d{13}", "spring:session:expirations:{ts}",
     "documented shape"),
    ("Spring Session", "principal index",
     r"spring:session:index:org\.springframework\.session\.FindByIndexNameSessionRepository"
     r"\.PRINCIPAL_NAME_INDEX_NAME:[a-z]+",
     "spring:session:index:org.springframework.session.FindByIndexNameSessionRepository"
     ".PRINCIPAL_NAME_INDEX_NAME:{*}", "documented shape"),
)

#: The step of this script that drives a library, where its name is not the library's.
STEP_OF = {"Django cache": "Django", "Django sessions": "Django", "express-session": "express",
           "express-rate-limit": "express", "Laravel cache": "Laravel", "Laravel queue": "Laravel",
           "Laravel Horizon": "Horizon", "python-redis-lock": "redis locks", "redis-py Lock": "redis locks"}
#: The step, for families written by another step than their library's (by pattern).
STEP_OF_FAMILY = {"LIMITS:{LIMITER/{ip}/search/10/1/minute}": "Flask-Limiter",
                  "bull:reports:report-{id}": "BullMQ flows", "bull:reports:report-{id}:dependencies": "BullMQ flows",
                  "bull:reports:report-{id}:processed": "BullMQ flows", "bull:reports:waiting-children": "BullMQ flows",
                  "bull:report-parts:{uuid}": "BullMQ flows", "bull:thumbs:{id}": "BullMQ flows",
                  "bull:digests:{id}": "BullMQ flows"}
#: How long a family's keys stay, where the library's configuration bounds it or keeps them forever
#: (the LIB checks are right or wrong about these): pattern -> (retention, the setting that decides it).
RETENTION = {
    "bull:thumbs:{id}": ("bounded", "removeOnComplete: 1000"),
    "bull:digests:{id}": ("bounded", "removeOnComplete: {age: 86400}"),
    "bull:reports:report-{id}": ("forever", "the queue's default options (no removeOnComplete)"),
    "bull:report-parts:{uuid}": ("forever", "the queue's default options (no removeOnComplete)"),
    "bull:emails:{id}": ("forever", "no removeOnComplete / removeOnFail"),
    "lock:export-{id}": ("forever", "python-redis-lock Lock(expire=None)"),
    "celery-task-meta-{uuid}": ("forever", "result_expires=None"),
    "celery-task-meta-invoice-{id}": ("forever", "result_expires=None"),
    "rq:job:export-{id}": ("forever", "result_ttl=-1"),
    "catalog:3:category:{id}": ("forever", "CACHES TIMEOUT=None"),
    "jobs:invoices:{id}": ("forever", "no removeOnComplete / removeOnFail"),
}
#: Families that only their values tell (the name is the application's): pattern -> what tells them.
TOLD_BY_VALUES = {
    "invoice:{id}:lock": "redis-py Lock: the value is the lock's token (a uuid1 hex)",
    "rq:job:export-{id}": "RQ: the job hash's data is a zlib-compressed pickle",
    "catalog:3:category:{id}": "Django cache: pickles under '<KEY_PREFIX>:<VERSION>:'",
    "support:ticket:{uuid}": "Redis OM: each hash holds its primary key in a pk field",
    "jobs:invoices:{id}": "BullMQ: the queue's meta hash names BullMQ (its version field)",
    "jobs:invoices:completed": "BullMQ: the queue's meta hash names BullMQ (its version field)",
    "jobs:invoices:events": "BullMQ: the queue's meta hash names BullMQ (its version field)",
}

#: A placeholder of rdbscope's patterns: a family whose pattern has one carries an id (or a time, an address).
PLACEHOLDER = re.compile(r"\{(?:id|uuid|hex|ts|date|ip|b64|\*)\}")

#: Keys of the application's own: (regex, pattern).
USER_FAMILIES = (
    (r"user:\d+:profile", "user:{id}:profile"),
    (r"user:\d+:cart", "user:{id}:cart"),
    (r"audit:event:\d+", "audit:event:{id}"),
    (r"UserPrefs:\d+", "UserPrefs:{id}"),
    (r"orders:\{tenant\d+\}:open", "orders:{tenant{id}}:open"),
)


# ---------------------------------------------------------------------------
# Python libraries, driven in this process
# ---------------------------------------------------------------------------


def drive_celery(url: str) -> None:
    from celery import Celery

    # Results: run eagerly and keep the result (task_store_eager_result), with
    # result_expires=None: the results never expire.
    app = Celery("shop", broker=url, backend=url)
    app.conf.update(task_always_eager=True, task_store_eager_result=True, result_expires=None)
    warnings.filterwarnings("ignore", "task_always_eager has no effect on send_task")

    @app.task(name="shop.resize")
    def resize(n):
        return n * 2

    for n in range(150):
        resize.delay(n).get()
    # Task ids of the application's (apply_async(task_id=...)): 'celery-task-meta-invoice-<n>'.
    for n in range(60):
        resize.apply_async((n,), task_id=f"invoice-{n}").get()
    # Broker: messages wait in the "celery" list for a worker.
    for n in range(40):
        app.send_task("shop.resize", args=(n,))
    # With a priority, kombu puts a message on '<queue><sep><step>' (sep '\x06\x16', steps 0, 3, 6, 9): the
    # lists 'celery\x06\x163', 'celery\x06\x166' and 'celery\x06\x169' ('celery' holds step 0).
    for n in range(30):
        app.send_task("shop.resize", args=(n,), priority=(3, 6, 9)[n % 3])


def drive_rq(url: str) -> None:
    import redis
    from rq import Queue, SimpleWorker

    connection = redis.Redis.from_url(url)
    queue = Queue("default", connection=connection)
    # The failed jobs' exc_info holds the traceback: without frames, it holds no path of this machine.
    sys.tracebacklimit = 0
    for n in range(120):
        queue.enqueue("operator.add", n, 1, result_ttl=-1)
    for n in range(30):
        queue.enqueue("operator.truediv", n, 0, failure_ttl=-1)
    SimpleWorker([queue], connection=connection).work(burst=True, logging_level="WARNING")
    del sys.tracebacklimit
    for n in range(20):
        queue.enqueue("operator.add", n, 2)
    # Jobs that wait for another: 'rq:job:<id>:dependencies' beside 'rq:job:<parent>:dependents', and the
    # deferred registry.
    for n in range(25):
        parent = queue.enqueue("operator.add", n, 3)
        queue.enqueue("operator.add", n, 4, depends_on=parent)
    # Job ids of the application's (enqueue(job_id=...)): 'rq:job:export-<n>', told by the job hash's data (a
    # zlib-compressed pickle); kept forever once done (result_ttl=-1).
    for n in range(40):
        queue.enqueue("operator.add", n, 5, job_id=f"export-{n}", result_ttl=-1)


def drive_django(port: int) -> None:
    import django
    from django.conf import settings

    settings.configure(
        SECRET_KEY="fixture",
        INSTALLED_APPS=["django.contrib.sessions"],
        SESSION_ENGINE="django.contrib.sessions.backends.cache",
        CACHES={"default": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{port}/0",
            "KEY_PREFIX": "shop",
            "VERSION": 1,
            "TIMEOUT": None,
        }, "catalog": {
            "BACKEND": "django.core.cache.backends.redis.RedisCache",
            "LOCATION": f"redis://127.0.0.1:{port}/0",
            "KEY_PREFIX": "catalog",
            "VERSION": 3,
            "TIMEOUT": None,
        }},
    )
    django.setup()
    from django.contrib.sessions.backends.cache import SessionStore
    from django.core.cache import cache, caches

    for product in range(1, 301):
        cache.set(f"product:{product}:price", product * 100 + 99)
    # Entries that are not integers are pickles (RedisSerializer, pickle.HIGHEST_PROTOCOL): under
    # 'catalog:3:' no session tells the cache, its values do.
    for category in range(1, 71):
        caches["catalog"].set(f"category:{category}", {"name": f"category {category}", "products": category * 4})
    for user in range(80):
        session = SessionStore()
        session["user_id"] = user
        session.save()


def drive_flask_caching(port: int) -> None:
    from flask import Flask
    from flask_caching import Cache

    app = Flask("shop")
    cache = Cache(app, config={"CACHE_TYPE": "RedisCache", "CACHE_REDIS_HOST": "127.0.0.1",
                               "CACHE_REDIS_PORT": port, "CACHE_DEFAULT_TIMEOUT": 300})
    with app.app_context():
        for user in range(1, 201):
            cache.set(f"user_{user}_feed", [user, user + 1], timeout=0)
        for page in range(1, 61):
            cache.set(f"page_{page}", f"<html>{page}</html>", timeout=600)


def drive_limits(url: str, rng: random.Random) -> None:
    from limits import parse
    from limits.storage import storage_from_string
    from limits.strategies import FixedWindowRateLimiter, MovingWindowRateLimiter, SlidingWindowCounterRateLimiter

    storage = storage_from_string(url)
    limiter = FixedWindowRateLimiter(storage)
    per_hour = parse("1000/hour")
    for _ in range(150):
        ip = f"10.{rng.randrange(256)}.{rng.randrange(256)}.{rng.randrange(1, 255)}"
        for _ in range(rng.randrange(1, 4)):
            limiter.hit(per_hour, "login", ip)
    # The sliding window counter keeps two keys per limit, hash-tagged to one cluster slot:
    # 'LIMITS:{LIMITER/...}' and 'LIMITS:{LIMITER/...}/-1'; the moving window one list per limit.
    sliding = SlidingWindowCounterRateLimiter(storage)
    moving = MovingWindowRateLimiter(storage)
    per_minute = parse("100/minute")
    for n in range(60):
        sliding.hit(per_minute, "api", f"token-{n}")
        moving.hit(per_minute, "search", f"token-{n}")


def drive_dramatiq(url: str) -> None:
    import dramatiq
    from dramatiq.brokers.redis import RedisBroker
    from dramatiq.results import Results
    from dramatiq.results.backends import RedisBackend

    broker = RedisBroker(url=url)
    # Results under the default key: the md5 of '<namespace>:<queue>:<actor>:<message id>', a list that
    # expires after result_ttl.
    broker.add_middleware(Results(backend=RedisBackend(url=url)))
    dramatiq.set_broker(broker)

    @dramatiq.actor(queue_name="default", store_results=True)
    def send_receipt(order):
        return order

    for order in range(50):
        send_receipt.send(order)
    worker = dramatiq.Worker(broker, worker_threads=1)
    worker.start()
    for order in range(40):
        send_receipt.send(order)
    broker.join("default")
    worker.stop()
    for order in range(50):
        send_receipt.send(order)
    broker.close()


def drive_huey(port: int) -> None:
    from huey import RedisHuey

    huey = RedisHuey("shop", host="127.0.0.1", port=port)

    @huey.task()
    def recount(n):
        return n + 1

    for n in range(40):
        recount(n)
    # Run half of them the way a consumer does, so that results are stored.
    for _ in range(20):
        huey.execute(huey.dequeue())


def drive_redis_om(url: str) -> None:
    import redis
    from redis_om import HashModel

    connection = redis.Redis.from_url(url, decode_responses=True)

    class Customer(HashModel, index=True):
        first_name: str
        email: str

        class Meta:
            database = connection
            model_key_prefix = "shop.models.Customer"

    class Order(HashModel, index=True):
        sku: str

        class Meta:
            database = connection
            global_key_prefix = "shop"
            model_key_prefix = "order"

    class UuidPrimaryKey:
        @staticmethod
        def create_pk(*args, **kwargs) -> str:
            return str(uuid.uuid4())

    # Primary keys of another shape than the ULID: the name tells nothing of Redis OM, the 'pk' field does.
    class Ticket(HashModel, index=True):
        subject: str

        class Meta:
            database = connection
            global_key_prefix = "support"
            model_key_prefix = "ticket"
            primary_key_creator_cls = UuidPrimaryKey

    for n in range(60):
        Customer(first_name=f"name{n}", email=f"c{n}@example.com").save()
    for n in range(50):
        Order(sku=f"sku-{n}").save()
    for n in range(45):
        Ticket(subject=f"ticket {n}").save()


def drive_arq(port: int) -> None:
    import asyncio

    from arq import create_pool
    from arq.connections import RedisSettings
    from arq.worker import Worker, func

    async def resize(ctx, n):
        return n * 2

    async def run():
        settings = RedisSettings(host="127.0.0.1", port=port)
        pool = await create_pool(settings)
        for n in range(60):
            await pool.enqueue_job("resize", n)
        # Results of the jobs a worker ran: 'arq:result:<id>', kept keep_result seconds (default 1 hour).
        worker = Worker(functions=[func(resize, name="resize")], redis_settings=settings, burst=True,
                        handle_signals=False, poll_delay=0.05)
        await worker.main()
        await worker.close()
        # Jobs waiting for a worker: 'arq:job:<id>' beside the 'arq:queue' sorted set.
        for n in range(40):
            await pool.enqueue_job("resize", n)
        await pool.aclose()

    asyncio.run(run())


def drive_channels(port: int) -> None:
    import asyncio

    from channels_redis.core import RedisChannelLayer

    async def run():
        layer = RedisChannelLayer(hosts=[("127.0.0.1", port)])
        # Each consumer joins its room's group: 'asgi:group:<group>' sorted sets, expiring after group_expiry.
        for n in range(40):
            channel = await layer.new_channel()
            await layer.group_add(f"room_{n}", channel)
            await layer.group_send(f"room_{n}", {"type": "chat.message", "n": n})
        await layer.close_pools()

    asyncio.run(run())


def drive_redis_locks(url: str) -> None:
    import redis
    import redis_lock

    connection = redis.Redis.from_url(url)
    # python-redis-lock names its keys 'lock:<name>'; expire=None keeps a lock until it is released.
    held = [redis_lock.Lock(connection, f"report-{n}", expire=600) for n in range(40)]
    forever = [redis_lock.Lock(connection, f"export-{n}", expire=None) for n in range(20)]
    for lock in held + forever:
        lock.acquire()
    # A release pushes onto 'lock-signal:<name>', which expires after signal_expire (ms; 1 s by default): kept
    # here for 10 minutes, as a busy application always has some. Beside them, 'lock:' is python-redis-lock's.
    for n in range(10):
        lock = redis_lock.Lock(connection, f"sync-{n}", expire=60, signal_expire=600_000)
        lock.acquire()
        lock.release()
    # redis-py's own Lock takes the name the application gives it.
    for n in range(30):
        connection.lock(f"invoice:{n}:lock", timeout=600).acquire()


def drive_flask_limiter(url: str) -> None:
    from flask import Flask
    from flask_limiter import Limiter
    from flask_limiter.util import get_remote_address

    app = Flask("shop")
    # The sliding window counter: 'LIMITS:{LIMITER/<address>/<endpoint>/10/1/minute}', hash-tagged.
    limiter = Limiter(get_remote_address, app=app, storage_uri=url, strategy="sliding-window-counter")

    @app.route("/search")
    @limiter.limit("10 per minute")
    def search():
        return "ok"

    client = app.test_client()
    for n in range(1, 71):
        client.get("/search", environ_base={"REMOTE_ADDR": f"192.168.{n // 200}.{n % 200 + 1}"})


# ---------------------------------------------------------------------------
# Node and Ruby libraries, driven in a child process
# ---------------------------------------------------------------------------

NODE_SCRIPT = r"""
const port = Number(process.argv[2]);
const jobs = Number(process.argv[3]);
// Failed jobs keep their error's stack: without frames, it holds no path of this machine.
Error.stackTraceLimit = 0;
const connection = { host: '127.0.0.1', port };

async function bullmq() {
  const { Queue, Worker } = require('bullmq');
  const queue = new Queue('emails', { connection });
  // No removeOnComplete / removeOnFail: every job stays.
  await queue.addBulk(Array.from({ length: jobs }, (_, i) => ({ name: 'welcome', data: { user: i } })));
  const worker = new Worker('emails', async (job) => {
    if (job.data.user % 10 === 3) throw new Error('mailbox full');
    return 'sent';
  }, { connection, concurrency: 20 });
  while ((await queue.getWaitingCount()) + (await queue.getActiveCount()) > 0) {
    await new Promise((r) => setTimeout(r, 100));
  }
  await worker.close();
  await queue.close();
  // A prefix of the application's (the prefix option) and a shorter event stream (streams.events.maxLen): the
  // queue's meta hash stores the cap and BullMQ's version.
  const opts = { connection, prefix: 'jobs', streams: { events: { maxLen: 500 } } };
  const invoices = new Queue('invoices', opts);
  await invoices.addBulk(Array.from({ length: 120 }, (_, i) => ({ name: 'invoice', data: { n: i } })));
  const w = new Worker('invoices', async (job) => job.data.n, { ...opts, concurrency: 10 });
  while ((await invoices.getWaitingCount()) + (await invoices.getActiveCount()) > 0) {
    await new Promise((r) => setTimeout(r, 100));
  }
  await w.close();
  await invoices.close();
}

async function bullmqFlows() {
  // A flow: a parent job (custom job id) waiting for its children, with the queue's default options (no
  // removeOnComplete: every job stays). '<job id>:dependencies' holds the children still to run,
  // '<job id>:processed' the results of those done.
  const { FlowProducer, Queue, Worker } = require('bullmq');
  const flows = new FlowProducer({ connection });
  const addFlows = async (from, to) => {
    for (let i = from; i < to; i++) {
      await flows.add({
        name: 'report', queueName: 'reports', data: { month: i }, opts: { jobId: `report-${i}` },
        children: [0, 1, 2].map((part) => ({ name: 'part', queueName: 'report-parts', data: { month: i, part } })),
      });
    }
  };
  // The children of the first 30 reports run (their parents then wait for a worker of 'reports'); those of
  // the last 10 wait for one.
  await addFlows(0, 30);
  let done = 0;
  const worker = new Worker('report-parts', async (job) => job.data.part, { connection, concurrency: 10 });
  await new Promise((resolve) => worker.on('completed', () => { if (++done === 90) resolve(); }));
  await worker.close();
  await addFlows(30, 40);
  await flows.close();
  // Bounded retention: the newest 1000 completed jobs, or the completed jobs of the last day.
  for (const [name, removeOnComplete] of [['thumbs', 1000], ['digests', { age: 24 * 3600 }]]) {
    const queue = new Queue(name, { connection, defaultJobOptions: { removeOnComplete } });
    await queue.addBulk(Array.from({ length: 150 }, (_, i) => ({ name, data: { n: i } })));
    const w = new Worker(name, async (job) => job.data.n, { connection, concurrency: 10 });
    while ((await queue.getWaitingCount()) + (await queue.getActiveCount()) > 0) {
      await new Promise((r) => setTimeout(r, 100));
    }
    await w.close();
    await queue.close();
  }
}

async function bull() {
  const Queue = require('bull');
  const queue = new Queue('video', { redis: connection });
  for (let i = 0; i < 120; i++) await queue.add({ clip: i });
  let done = 0;
  await new Promise((resolve) => {
    queue.process(5, async (job) => job.data.clip);
    queue.on('completed', () => { if (++done === 120) resolve(); });
  });
  await queue.close();
}

async function beeQueue() {
  const BeeQueue = require('bee-queue');
  const queue = new BeeQueue('thumbnails', { redis: connection, removeOnSuccess: false });
  for (let i = 0; i < 80; i++) await queue.createJob({ image: i }).save();
  let done = 0;
  await new Promise((resolve) => {
    queue.process(async (job) => job.data.image);
    queue.on('succeeded', () => { if (++done === 80) resolve(); });
  });
  await queue.close();
}

async function webApp() {
  const express = require('express');
  const session = require('express-session');
  const { RedisStore } = require('connect-redis');
  const { rateLimit } = require('express-rate-limit');
  const { RedisStore: RateLimitStore } = require('rate-limit-redis');
  const { createClient } = require('redis');
  const client = createClient({ url: `redis://127.0.0.1:${port}` });
  await client.connect();
  const app = express();
  app.use(rateLimit({
    windowMs: 15 * 60 * 1000, limit: 100,
    keyGenerator: (req) => req.get('x-client'),
    store: new RateLimitStore({ sendCommand: (...args) => client.sendCommand(args) }),
  }));
  app.use(session({ store: new RedisStore({ client }), secret: 'fixture', resave: false,
                    saveUninitialized: false }));
  app.get('/login', (req, res) => { req.session.user = req.query.user; res.send('ok'); });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  const base = `http://127.0.0.1:${server.address().port}`;
  for (let i = 0; i < 90; i++) {
    await fetch(`${base}/login?user=${i}`, { headers: { 'x-client': `client-${i}` } });
  }
  await new Promise((r) => server.close(r));
  await client.quit();
}

async function socketIo() {
  // The adapter talks over pub/sub only: it is driven to show that it writes no keys.
  const { Server } = require('socket.io');
  const { createAdapter } = require('@socket.io/redis-adapter');
  const { createClient } = require('redis');
  const pub = createClient({ url: `redis://127.0.0.1:${port}` });
  const sub = pub.duplicate();
  await Promise.all([pub.connect(), sub.connect()]);
  const http = require('http').createServer();
  const io = new Server(http, { adapter: createAdapter(pub, sub) });
  await new Promise((r) => http.listen(0, '127.0.0.1', r));
  io.to('room-1').emit('hello', 1);
  await new Promise((r) => setTimeout(r, 200));
  io.close();
  await Promise.all([pub.quit(), sub.quit()]);
}

async function socketIoStreams() {
  // The streams adapter keeps the cluster's packets in one stream (streamName) and, with connection
  // state recovery, the session of each dropped client until maxDisconnectionDuration.
  const { Server } = require('socket.io');
  const { createAdapter } = require('@socket.io/redis-streams-adapter');
  const { io: connect } = require('socket.io-client');
  const { createClient } = require('redis');
  const client = createClient({ url: `redis://127.0.0.1:${port}` });
  await client.connect();
  const http = require('http').createServer();
  const io = new Server(http, { adapter: createAdapter(client),
                                connectionStateRecovery: { maxDisconnectionDuration: 2 * 60 * 1000 } });
  await new Promise((r) => http.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${http.address().port}`;
  io.on('connection', (socket) => socket.join('room-1'));
  const sockets = [];
  for (let i = 0; i < 30; i++) {
    const socket = connect(url, { transports: ['websocket'], reconnection: false });
    await new Promise((r) => socket.once('connect', r));
    sockets.push(socket);
  }
  for (let i = 0; i < 200; i++) io.to('room-1').emit('price', i);
  await new Promise((r) => setTimeout(r, 500));
  // A dropped connection (not the client's own disconnect()) keeps its session for recovery.
  for (const socket of sockets) socket.io.engine.close();
  await new Promise((r) => setTimeout(r, 500));
  io.close();
  await client.quit();
}

async function resque() {
  // node-resque keeps Resque's keys: namespace resque, queue:<name>, queues, failed, stat:<name>.
  const { Queue, Worker } = require('node-resque');
  const performers = {
    WelcomeMailer: { perform: async (n) => { if (n % 3 === 0) throw new Error('Net::ReadTimeout'); return n; } },
  };
  const resqueConnection = { pkg: 'ioredis', host: '127.0.0.1', port, namespace: 'resque' };
  const queue = new Queue({ connection: resqueConnection }, performers);
  await queue.connect();
  for (let i = 0; i < 180; i++) await queue.enqueue('mailers', 'WelcomeMailer', [i]);
  const worker = new Worker({ connection: resqueConnection, queues: ['mailers'], timeout: 10 }, performers);
  await worker.connect();
  let done = 0;
  await new Promise((resolve) => {
    const step = () => { if (++done === 135) resolve(); };
    worker.on('success', step);
    worker.on('failure', step);
    worker.start();
  });
  await worker.end();
  // Jobs that wait for a worker.
  for (let i = 0; i < 45; i++) await queue.enqueue('mailers', 'WelcomeMailer', [1000 + i]);
  // Delayed jobs (resque-scheduler's keys): 'delayed:<timestamp>' lists, 'timestamps:<job as JSON>' sets and
  // the 'delayed_queue_schedule' sorted set.
  for (let i = 0; i < 40; i++) {
    await queue.enqueueAt(1900000000000 + i * 60000, 'mailers', 'WelcomeMailer', [2000 + i]);
  }
  await queue.end();
}

const steps = { bullmq, bullmqFlows, bull, beeQueue, webApp, socketIo, socketIoStreams, resque };
steps[process.argv[4]]().then(() => process.exit(0), (e) => { console.error(e); process.exit(1); });
"""

RUBY_SCRIPT = r"""
require 'sidekiq'
require 'sidekiq/api'
require 'active_support'
require 'active_support/cache'
require 'active_support/cache/redis_cache_store'

Redis.silence_deprecations = true
url = "redis://127.0.0.1:#{ARGV[0]}/0"
Sidekiq.configure_client { |config| config.redis = { url: url } }

class HardWorker
  include Sidekiq::Worker
  def perform(n); end
end

case ARGV[1]
when 'sidekiq'
  60.times { |n| HardWorker.perform_async(n) }
  25.times { |n| HardWorker.perform_in(3600 + n, n) }
  dead = Sidekiq::DeadSet.new
  40.times do |n|
    job = { 'class' => 'HardWorker', 'args' => [n], 'queue' => 'default',
            'jid' => SecureRandom.hex(12), 'error_message' => 'boom', 'error_class' => 'RuntimeError',
            'failed_at' => Time.now.to_f, 'retry_count' => 25 }
    dead.kill(Sidekiq.dump_json(job), notify_failure: false)
  end
when 'rails'
  store = ActiveSupport::Cache::RedisCacheStore.new(url: url, namespace: 'storefront')
  (1..150).each { |n| store.write("products/#{n}/price", n * 3) }
  (1..30).each { |n| store.write("products/#{n}/stock", n, expires_in: 600) }
when 'fragments'
  # Action View's fragment caching (<% cache product do %>) through a controller's render: the keys
  # are 'views/<template>:<template digest>/<cache key>' in the same cache store.
  require 'action_controller'
  require 'active_model'
  class Product
    include ActiveModel::Model
    attr_accessor :id, :name, :price
    def cache_key; "products/#{id}"; end
    def to_partial_path; 'products/product'; end
  end
  class ProductsController < ActionController::Base
    self.view_paths = [ARGV[2]]
    self.perform_caching = true
  end
  ProductsController.cache_store = ActiveSupport::Cache::RedisCacheStore.new(url: url, namespace: 'storefront')
  products = (1..120).map { |n| Product.new(id: n, name: "product #{n}", price: n * 3) }
  ProductsController.render(:index, locals: { products: products })
end
"""


PHP_SCRIPT = r"""<?php
// Laravel's Redis cache store and Redis queue (Debian's php-illuminate-*), through Illuminate's own classes.
require_once 'Illuminate/Cache/autoload.php';
require_once 'Illuminate/Redis/autoload.php';
require_once 'Illuminate/Queue/autoload.php';
require_once 'Predis/autoload.php';

use Illuminate\Cache\RedisStore;
use Illuminate\Cache\Repository;
use Illuminate\Container\Container;
use Illuminate\Queue\RedisQueue;
use Illuminate\Redis\RedisManager;

$port = (int) $argv[1];
$app = new Container();
// The Laravel 8 skeleton's config/database.php and config/cache.php with APP_NAME=laravel:
// redis prefix 'laravel_database_', cache prefix 'laravel_cache'.
$redis = new RedisManager($app, 'predis', [
    'options' => ['prefix' => 'laravel_database_'],
    'default' => ['host' => '127.0.0.1', 'port' => $port, 'database' => 0],
]);
$cache = new Repository(new RedisStore($redis, 'laravel_cache', 'default'));
for ($n = 1; $n <= 90; $n++) {
    $cache->forever("report:$n", ['rows' => $n]);
}
for ($n = 1; $n <= 40; $n++) {
    $cache->put("weather:$n", ['temp' => $n], 900);
}
$queue = new RedisQueue($redis, 'default', 'default');
$queue->setContainer($app);
for ($n = 1; $n <= 30; $n++) {
    $queue->push('App\Jobs\SendInvoice', ['invoice' => $n]);
}
for ($n = 1; $n <= 10; $n++) {
    $queue->later(3600, 'App\Jobs\SendInvoice', ['invoice' => 100 + $n]);
}
"""


def run_php(port: int, workdir: Path) -> None:
    script = workdir / "drive.php"
    script.write_text(PHP_SCRIPT)
    subprocess.run(["php", str(script), str(port)], check=True, timeout=300)


def run_node(step: str, port: int, node_modules: Path, workdir: Path) -> None:
    script = workdir / "drive.js"
    script.write_text(NODE_SCRIPT)
    env = dict(os.environ, NODE_PATH=str(node_modules))
    subprocess.run(["node", str(script), str(port), str(BULLMQ_JOBS), step], check=True, env=env,
                   timeout=300)


#: The views of the fragment caching step: a list of products, each cached by its partial.
RAILS_VIEWS = {
    "products/index.html.erb": '<% cache "product-list" do %><ul><%= render partial: "products/product", '
                               'collection: products %></ul><% end %>\n',
    "products/_product.html.erb": "<% cache product do %><li><%= product.name %>: <%= product.price %></li>"
                                  "<% end %>\n",
}


def run_ruby(step: str, port: int, workdir: Path) -> None:
    script = workdir / "drive.rb"
    script.write_text(RUBY_SCRIPT)
    views = workdir / "views"
    for name, text in RAILS_VIEWS.items():
        (views / name).parent.mkdir(parents=True, exist_ok=True)
        (views / name).write_text(text)
    subprocess.run(["ruby", str(script), str(port), step, str(views)], check=True, timeout=300)


# ---------------------------------------------------------------------------
# Libraries that cannot be run here: keys in the shape their source gives
# ---------------------------------------------------------------------------


def write_horizon(client: Any) -> None:
    # laravel/horizon (config/horizon.php "prefix" "horizon:") keeps one hash per job id, which
    # RedisJobRepository expires with horizon.trim, and the sorted set recent_jobs.
    pipe = client.pipeline()
    for n in range(1, 71):
        job_id = str(n)
        pipe.hset(f"horizon:{job_id}", mapping={"id": job_id, "connection": "redis", "queue": "default",
                                               "name": "App\\Jobs\\SendInvoice", "status": "completed"})
        pipe.expire(f"horizon:{job_id}", 3600)
        pipe.zadd("horizon:recent_jobs", {job_id: -n})
    pipe.execute()


#: Spring Session (spring-session-data-redis 3.5.7, RedisIndexedSessionRepository with its defaults).
SPRING_NAMESPACE = "spring:session:"  # RedisIndexedSessionRepository.DEFAULT_NAMESPACE + ":"
SPRING_MAX_INACTIVE_S = 1800  # MapSession.DEFAULT_MAX_INACTIVE_INTERVAL_SECONDS
SPRING_PRINCIPAL_INDEX = "org.springframework.session.FindByIndexNameSessionRepository.PRINCIPAL_NAME_INDEX_NAME"
#: The users who log in: each several times, a session per login.
SPRING_PRINCIPALS = ("alice", "bob", "carol", "dave", "erin", "frank", "grace", "heidi", "ivan", "judy")
SPRING_LOGINS = 50
SPRING_REVISITS = 20


def _jdk_value(payload: bytes) -> bytes:
    """A hash value as JdkSerializationRedisSerializer (the default value serializer) writes it, in shape only.

    The JDK serialization magic and version (ObjectStreamConstants STREAM_MAGIC 0xaced, STREAM_VERSION 5)
    lead every value. The payload after them is NOT a real serialized object (a java.lang.Long, an Integer, a
    SecurityContextImpl): only a short stand-in, binary as the real one is.
    """
    return b"\xac\xed\x00\x05" + payload


def _jdk_string(text: str) -> bytes:
    """A java.lang.String as ObjectOutputStream writes it (TC_STRING 0x74, a 2-byte length, the ASCII text): the
    real serialized form, which set members get from the same value serializer."""
    data = text.encode("ascii")
    return b"\xac\xed\x00\x05t" + len(data).to_bytes(2, "big") + data


def _next_minute(ms: int) -> int:
    # MinuteBasedRedisSessionExpirationStore.roundUpToNextMinute: plus one minute, truncated to the minute.
    return (ms // 60_000 + 1) * 60_000


def write_spring_session(client: Any, rng: random.Random) -> None:
    """Logins and later requests of SPRING_PRINCIPALS, each save replayed as RedisIndexedSessionRepository's
    RedisSession.saveDelta issues it (spring-session-data-redis 3.5.7, default namespace and serializers).

    Per save, in its order: HSET of the changed fields on ``sessions:<id>`` (RedisSessionMapper's
    creationTime, lastAccessedTime, maxInactiveInterval and sessionAttr:<name>; keys and hash keys as text,
    values JDK-serialized); when the delta holds SPRING_SECURITY_CONTEXT or the principal-name attribute, SADD of
    the id to ``index:<PRINCIPAL_NAME_INDEX_NAME>:<principal>`` (no TTL: cleanupPrincipalIndex removes the id
    when the session expires or is deleted); createShadowKey: APPEND "" to ``sessions:expires:<id>`` and EXPIRE
    maxInactiveInterval; EXPIRE of the hash to maxInactiveInterval + 5 minutes; then
    MinuteBasedRedisSessionExpirationStore.save: SREM ``expires:<id>`` from the set of the previous expiry minute
    when it moved, EXPIRE of ``expirations:<expiry rounded up to the minute>`` to maxInactiveInterval + 5
    minutes and only then SADD of ``expires:<id>``, so the first session of a minute leaves the set without a
    TTL (the EXPIRE met no key) and a later save to that minute gives it one.

    The saves happened over the last 25 minutes: each EXPIRE is replayed as a PEXPIREAT at the time of its
    save, so the dump holds what the repository would have left. The cleanup job (cleanupExpiredSessions,
    every minute) deletes only the set of the minute just past: none of these, which are 5 to 30 minutes away.
    """
    seconds, micros = client.time()
    now_ms = seconds * 1000 + micros // 1000
    principals = list(SPRING_PRINCIPALS) * 2
    principals += [rng.choice(SPRING_PRINCIPALS) for _ in range(SPRING_LOGINS - len(principals))]
    saves = []  # (time, session id, principal or None for a later request)
    for principal in principals:
        sid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
        login = now_ms - rng.randrange(60_000, 25 * 60_000)
        saves.append((login, sid, principal))
    for login, sid, _ in rng.sample(saves, SPRING_REVISITS):
        saves.append((rng.randrange(login + 30_000, now_ms), sid, None))
    saves.sort()
    last_access: dict[str, int] = {}
    for at, sid, principal in saves:
        session = f"{SPRING_NAMESPACE}sessions:{sid}"
        if principal is not None:  # a new session: the whole session is the delta
            delta = {
                "creationTime": _jdk_value(b"sr java.lang.Long " + at.to_bytes(8, "big")),
                "maxInactiveInterval": _jdk_value(b"sr java.lang.Integer " + SPRING_MAX_INACTIVE_S.to_bytes(4, "big")),
                "lastAccessedTime": _jdk_value(b"sr java.lang.Long " + at.to_bytes(8, "big")),
                "sessionAttr:SPRING_SECURITY_CONTEXT": _jdk_value(
                    b"sr SecurityContextImpl UsernamePasswordAuthenticationToken " + principal.encode()
                    + rng.randbytes(48)),
            }
            if rng.random() < 0.5:
                delta["sessionAttr:cart"] = _jdk_value(b"sr java.util.ArrayList " + rng.randbytes(16))
            original = None
        else:  # a later request: only lastAccessedTime changed
            delta = {"lastAccessedTime": _jdk_value(b"sr java.lang.Long " + at.to_bytes(8, "big"))}
            original = last_access[sid] + SPRING_MAX_INACTIVE_S * 1000
        last_access[sid] = at
        pipe = client.pipeline()
        pipe.hset(session, mapping=delta)
        if principal is not None:
            pipe.sadd(f"{SPRING_NAMESPACE}index:{SPRING_PRINCIPAL_INDEX}:{principal}", _jdk_string(sid))
        expires = at + SPRING_MAX_INACTIVE_S * 1000
        five_minutes_after = expires + 5 * 60_000
        pipe.append(f"{SPRING_NAMESPACE}sessions:expires:{sid}", "")
        pipe.pexpireat(f"{SPRING_NAMESPACE}sessions:expires:{sid}", expires)
        pipe.pexpireat(session, five_minutes_after)
        minute = _next_minute(expires)
        if original is not None and _next_minute(original) != minute:
            pipe.srem(f"{SPRING_NAMESPACE}expirations:{_next_minute(original)}", _jdk_string(f"expires:{sid}"))
        pipe.pexpireat(f"{SPRING_NAMESPACE}expirations:{minute}", five_minutes_after)
        pipe.sadd(f"{SPRING_NAMESPACE}expirations:{minute}", _jdk_string(f"expires:{sid}"))
        pipe.execute()


def write_own_keys(client: Any, rng: random.Random) -> None:
    pipe = client.pipeline()
    for user in range(1, 121):
        pipe.hset(f"user:{user}:profile", mapping={"name": f"user {user}", "city": rng.choice("ABCDE")})
        if user % 3 == 0:
            pipe.rpush(f"user:{user}:cart", *(f"sku-{rng.randrange(1000)}" for _ in range(3)))
    # Names the naming and cluster rules speak of: a camelCase namespace, and hash tags no other key shares.
    for user in range(1, 41):
        pipe.hset(f"UserPrefs:{user}", mapping={"theme": rng.choice(("dark", "light"))})
        pipe.sadd(f"orders:{{tenant{user}}}:open", *(f"order-{rng.randrange(10_000)}" for _ in range(2)))
    # An audit log keyed by a growing counter and never trimmed: a leak no library owns.
    for event in range(1, 1501):
        pipe.set(f"audit:event:{event}", json.dumps({"user": rng.randrange(1, 121), "action": "login"}))
    pipe.execute()


# ---------------------------------------------------------------------------
# Oracle
# ---------------------------------------------------------------------------

_LENGTH = {b"string": "STRLEN", b"list": "LLEN", b"set": "SCARD", b"zset": "ZCARD", b"hash": "HLEN",
           b"stream": "XLEN"}


def all_keys(client: Any) -> set[bytes]:
    return set(client.scan_iter(count=1000))


def read_oracle(client: Any) -> dict[str, dict[str, Any]]:
    keys = sorted(all_keys(client))
    pipe = client.pipeline(transaction=False)
    for key in keys:
        pipe.type(key)
        pipe.pttl(key)
    replies = pipe.execute()
    types = replies[0::2]
    ttls = replies[1::2]
    pipe = client.pipeline(transaction=False)
    for key, kind in zip(keys, types, strict=True):
        pipe.execute_command(_LENGTH[kind], key)
    lengths = pipe.execute()
    return {
        key.decode(): {"type": kind.decode(), "pttl_ms": ttl, "length": length}
        for key, kind, ttl, length in zip(keys, types, ttls, lengths, strict=True)
    }


def library_versions(node_modules: Path | None) -> dict[str, str]:
    from importlib.metadata import version

    versions = {name: version(dist) for name, dist in (
        ("Celery", "celery"), ("kombu", "kombu"), ("RQ", "rq"), ("Django", "django"),
        ("Flask-Caching", "flask-caching"), ("limits", "limits"), ("Dramatiq", "dramatiq"),
        ("Huey", "huey"), ("Redis OM", "redis-om"), ("arq", "arq"), ("channels_redis", "channels-redis"),
        ("python-redis-lock", "python-redis-lock"), ("redis-py", "redis"), ("Flask-Limiter", "flask-limiter"))}
    if node_modules:
        for name, package in (("BullMQ", "bullmq"), ("Bull", "bull"), ("Bee-Queue", "bee-queue"),
                              ("express-session", "express-session"), ("connect-redis", "connect-redis"),
                              ("express-rate-limit", "express-rate-limit"),
                              ("rate-limit-redis", "rate-limit-redis"),
                              ("@socket.io/redis-adapter", "@socket.io/redis-adapter"),
                              ("Socket.IO streams adapter", "@socket.io/redis-streams-adapter"),
                              ("node-resque", "node-resque")):
            versions[name] = json.loads((node_modules / package / "package.json").read_text())["version"]
    for name, gem in (("Sidekiq", "sidekiq"), ("Rails cache", "activesupport")):
        found = subprocess.run(["ruby", "-e", f"print Gem.loaded_specs.fetch('{gem}') {{ Gem::Specification"
                                f".find_by_name('{gem}') }}.version"], capture_output=True, text=True)
        if found.returncode == 0:
            versions[name] = found.stdout.strip()
    for name, package in (("Laravel (illuminate)", "php-illuminate-cache"), ("Predis", "php-predis")):
        found = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", package], capture_output=True, text=True)
        if found.returncode == 0:
            versions[name] = found.stdout.strip()
    return versions


def truth_text(truth: dict[str, Any]) -> str:
    """The truth as JSON, one line per key of the oracle."""
    rest = {name: value for name, value in truth.items() if name != "keys"}
    keys = ",\n".join(f"  {json.dumps(key)}: {json.dumps(record, sort_keys=True)}"
                      for key, record in sorted(truth["keys"].items()))
    return json.dumps(rest, indent=1, sort_keys=True)[:-2] + ',\n "keys": {\n' + keys + "\n }\n}\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, default=Path(__file__).resolve().parent)
    parser.add_argument("--node-modules", type=Path, required=True,
                        help="a node_modules directory holding the Node libraries")
    args = parser.parse_args(argv)
    binary = next((s for s in discover_servers() if s.label == "redis-7.0"), None)
    if binary is None:
        print("Debian's redis-server 7.0 not found", file=sys.stderr)
        return 2
    rng = random.Random(SEED)
    owner: dict[str, str] = {}
    with RunningServer(binary, {"save": "", "appendonly": "no"}) as server, \
            tempfile.TemporaryDirectory() as scratch:
        import redis

        client = redis.Redis(host="127.0.0.1", port=server.port)
        url = f"redis://127.0.0.1:{server.port}/0"
        workdir = Path(scratch)
        steps = (
            ("Celery", lambda: drive_celery(url)),
            ("RQ", lambda: drive_rq(url)),
            ("Django", lambda: drive_django(server.port)),
            ("Flask-Caching", lambda: drive_flask_caching(server.port)),
            ("limits", lambda: drive_limits(url, rng)),
            ("Dramatiq", lambda: drive_dramatiq(url)),
            ("Huey", lambda: drive_huey(server.port)),
            ("Redis OM", lambda: drive_redis_om(url)),
            ("arq", lambda: drive_arq(server.port)),
            ("channels_redis", lambda: drive_channels(server.port)),
            ("redis locks", lambda: drive_redis_locks(url)),
            ("Flask-Limiter", lambda: drive_flask_limiter(url)),
            ("BullMQ", lambda: run_node("bullmq", server.port, args.node_modules, workdir)),
            ("BullMQ flows", lambda: run_node("bullmqFlows", server.port, args.node_modules, workdir)),
            ("Bull", lambda: run_node("bull", server.port, args.node_modules, workdir)),
            ("Bee-Queue", lambda: run_node("beeQueue", server.port, args.node_modules, workdir)),
            ("express", lambda: run_node("webApp", server.port, args.node_modules, workdir)),
            ("@socket.io/redis-adapter", lambda: run_node("socketIo", server.port, args.node_modules, workdir)),
            ("Socket.IO streams adapter",
             lambda: run_node("socketIoStreams", server.port, args.node_modules, workdir)),
            ("Resque", lambda: run_node("resque", server.port, args.node_modules, workdir)),
            ("Sidekiq", lambda: run_ruby("sidekiq", server.port, workdir)),
            ("Rails cache", lambda: (run_ruby("rails", server.port, workdir),
                                     run_ruby("fragments", server.port, workdir))),
            ("Laravel", lambda: run_php(server.port, workdir)),
            ("Horizon", lambda: write_horizon(client)),
            ("Spring Session", lambda: write_spring_session(client, rng)),
            ("application", lambda: write_own_keys(client, rng)),
        )
        written: dict[str, int] = {}
        for name, step in steps:
            before = all_keys(client)
            step()
            new = all_keys(client) - before
            written[name] = len(new)
            for key in new:
                owner[key.decode()] = name
            print(f"{name}: {len(new)} keys", flush=True)
        oracle = read_oracle(client)
        client.execute_command("SAVE")
        dump = server.dump_path.read_bytes()
        if read_oracle(client).keys() != oracle.keys():
            raise RuntimeError("the keyspace changed while the oracle was read")
        server_version = client.info("server")["redis_version"]
    for key, record in oracle.items():
        record["written_by"] = owner.get(key)
    truth = {
        "file": "libraries.rdb",
        "server": f"redis {server_version}",
        "versions": library_versions(args.node_modules),
        "keys_written": written,
        "families": [
            {"library": library, "key_kind": kind, "regex": regex, "pattern": pattern, "evidence": evidence,
             "written_by": STEP_OF_FAMILY.get(pattern, STEP_OF.get(library, library)),
             "carries_id": bool(PLACEHOLDER.search(pattern)),
             "told_by": "values" if pattern in TOLD_BY_VALUES else "name",
             **({"retention": dict(zip(("kind", "setting"), RETENTION[pattern], strict=True))}
                if pattern in RETENTION else {})}
            for library, kind, regex, pattern, evidence in FAMILIES
        ],
        "user_families": [{"regex": regex, "pattern": pattern} for regex, pattern in USER_FAMILIES],
        "keys": oracle,
    }
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "libraries.rdb").write_bytes(dump)
    (args.out / "libraries.json").write_text(truth_text(truth))
    print(f"{len(oracle)} keys -> {args.out / 'libraries.rdb'}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
