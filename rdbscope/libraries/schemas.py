"""SCHEMAS: the keys that job queues, caches, session stores and rate limiters write, library by library.

Each entry is one kind of key a library writes, read from the library's own source
(the file is named in the comment above it). ``regex`` runs over rdbscope's
*pattern* text (``bull:emails:{id}``), not over keys; a ``prefix`` group takes
whatever a prefix setting put in front. Entries marked ``evidence="documented
shape"`` come from the source of a library that could not be run where the
sample dump was made (see sample_dumps/make_library_dump.py): weaker evidence
than the others, whose keys were written by the library itself (Resque's, by
node-resque, a port that keeps its key layout).
"""

from dataclasses import dataclass

#: What a key kind is for; the findings about keys without a TTL go by it.
JOB, RESULT, QUEUE, REGISTRY, FAILED, SESSION, CACHE, RATE_LIMIT, RECORD, STATE, LOCK = (
    "job", "result", "queue", "registry", "failed", "session", "cache", "rate limit", "record", "state", "lock")


@dataclass(frozen=True)
class Library:
    """A library and how its key names are set.

    Attributes:
        name: as its users call it.
        versions: the versions whose source the schemas were read from.
        prefix_setting: the setting that puts a prefix before its keys, or why there is none.
        ttl_setting: the setting that gives its keys a TTL (or removes them), by key role.
        evidence: "library" (keys written by the library ran here), "compatible library (<name>)" (by a
            port that keeps the library's keys) or "documented shape" (keys written in the shape its source gives).
    """

    name: str
    versions: str
    prefix_setting: str
    ttl_setting: dict
    evidence: str = "library"


@dataclass(frozen=True)
class KeySchema:
    """One kind of key of a library.

    Attributes:
        library: the :class:`Library`.
        template: the key as the library's source writes it.
        regex: matches the pattern text of such keys.
        types: Redis types the key has.
        key_kind: what the key holds, in a few words.
        role: JOB, RESULT, QUEUE, … (module constants).
        needs: for names too plain to tell by themselves (Sidekiq's ``dead``), a regex that another
            pattern of the same database and prefix must match.
        name_setting: the setting that shapes this kind's names beyond the library's prefix (kombu's
            priority separator), or "".
        examples: for a pattern whose placeholder could be anyone's id, a regex every example key must
            fully match (Redis OM's ULID primary keys), or "".
    """

    library: Library
    template: str
    regex: str
    types: tuple
    key_kind: str
    role: str
    needs: str = ""
    name_setting: str = ""
    examples: str = ""


CELERY = Library(
    "Celery", "5.x (kombu 5.x)",
    "result_backend_transport_options={'global_keyprefix': ...} for results; "
    "broker_transport_options={'global_keyprefix': ...} for the broker",
    {RESULT: "result_expires (default 1 day; None keeps results forever)"})
RQ = Library("RQ", "1.x-3.x", "the RQ_KEY_PREFIX environment variable (RQ 3; default rq; fixed before)",
             {JOB: "result_ttl / failure_ttl on enqueue (-1 keeps the job forever)",
              RESULT: "result_ttl on enqueue (-1 keeps the result forever)"})
SIDEKIQ = Library("Sidekiq", "6.x-7.x", "redis-namespace (Sidekiq 6) or a separate database",
                  {REGISTRY: "dead_max_jobs / dead_timeout_in_seconds (the dead set is trimmed, not expired)"})
BULLMQ = Library("BullMQ", "3.x-6.x", "the prefix queue option (default bull)",
                 {JOB: "removeOnComplete / removeOnFail job options (default: keep every job)"})
BULL = Library("Bull", "3.x-4.x", "the prefix queue option (default bull)",
               {JOB: "removeOnComplete / removeOnFail job options (default: keep every job)"})
BULL_OR_BULLMQ = Library("BullMQ or Bull", "Bull 3-4, BullMQ 3-6", "the prefix queue option (default bull)",
                         {JOB: "removeOnComplete / removeOnFail job options (default: keep every job)"})
BEE_QUEUE = Library("Bee-Queue", "1.x-2.x", "the prefix queue setting (default bq)",
                    {JOB: "removeOnSuccess / removeOnFailure queue settings (default: keep every job)"})
RESQUE = Library("Resque", "2.x", "Resque.redis = Redis::Namespace.new(...) (default resque)",
                 {FAILED: "Resque::Failure.backend (the default, Resque::Failure::Redis, never trims resque:failed: "
                          "clear it on a schedule with Resque::Failure.clear, requeue_queue or remove_queue)"},
                 evidence="compatible library (node-resque)")
DJANGO_SESSIONS = Library("Django sessions", "4.x-5.x", "CACHES KEY_PREFIX and VERSION (the cache's)",
                          {SESSION: "SESSION_COOKIE_AGE (sessions expire with it)"})
DJANGO_CACHE = Library("Django cache", "4.x-5.x", "CACHES KEY_PREFIX and VERSION",
                       {CACHE: "CACHES TIMEOUT (None keeps entries forever) or timeout= on set()"})
FLASK_CACHING = Library("Flask-Caching", "1.x-2.x", "CACHE_KEY_PREFIX (default flask_cache_)",
                        {CACHE: "CACHE_DEFAULT_TIMEOUT or timeout= on set() (0 keeps entries forever)"})
RAILS_CACHE = Library("Rails cache", "6.x-7.x", "namespace: option of the Redis cache store",
                      {CACHE: "expires_in on the store or on cache/write (default: none: entries stay until an "
                              "allkeys-* maxmemory-policy evicts them)"})
LARAVEL_CACHE = Library("Laravel cache", "8.x-11.x",
                        "REDIS_PREFIX (database.redis.options.prefix) and CACHE_PREFIX",
                        {CACHE: "the seconds passed to Cache::put (Cache::forever keeps entries)"})
LARAVEL_QUEUE = Library("Laravel queue", "8.x-11.x", "REDIS_PREFIX (database.redis.options.prefix)",
                        {QUEUE: "jobs leave the list when a worker runs them (queue:work)"})
HORIZON = Library("Laravel Horizon", "5.x", "horizon.prefix (default horizon:)",
                  {JOB: "horizon.trim (minutes recent/completed/failed jobs are kept)"},
                  evidence="documented shape")
LIMITS = Library("limits", "3.x-5.x (also Flask-Limiter 3.x-4.x)",
                 "key_prefix of the storage (default LIMITS; Flask-Limiter: RATELIMIT_STORAGE_OPTIONS); "
                 "Flask-Limiter's RATELIMIT_KEY_PREFIX goes after LIMITER/",
                 {RATE_LIMIT: "the window of each limit (keys expire with their window)"})
EXPRESS_SESSION = Library("express-session", "connect-redis 6-9", "the prefix store option (default sess:)",
                          {SESSION: "cookie.maxAge, or connect-redis's ttl option (default 1 day)"})
EXPRESS_RATE_LIMIT = Library("express-rate-limit", "rate-limit-redis 3-6", "the prefix store option (default rl:)",
                             {RATE_LIMIT: "windowMs (keys expire with their window)"})
DRAMATIQ = Library("Dramatiq", "1.x-2.x", "the namespace broker option (default dramatiq); results: the "
                   "namespace and use_namespace_prefix_keys of the results backend (default: an md5 of each message)",
                   {QUEUE: "messages leave the queue when acknowledged; dead_message_ttl for dead letters",
                    RESULT: "result_ttl of the Results middleware (default 10 minutes)"})
HUEY = Library("Huey", "2.x", "the huey name (RedisHuey('name')) is part of every key",
               {RESULT: "results are read once and deleted; results=False stores none"})
REDIS_OM = Library("Redis OM", "redis-om-python 0.x-1.x", "Meta.global_key_prefix and Meta.model_key_prefix",
                   {RECORD: "Model.expire(seconds) on each saved model"})
SPRING_SESSION = Library("Spring Session", "2.x-3.x",
                         "@EnableRedisHttpSession(redisNamespace=...) (default spring:session)",
                         {SESSION: "maxInactiveIntervalInSeconds (default 1800)"}, evidence="documented shape")
SOCKET_IO = Library("Socket.IO streams adapter", "@socket.io/redis-streams-adapter 0.x",
                    "the streamName and sessionKeyPrefix options (default socket.io, sio:session:)",
                    {QUEUE: "maxLen option (the stream is trimmed, not expired)",
                     SESSION: "connectionStateRecovery.maxDisconnectionDuration (sessions expire with it)"})

ARQ = Library("arq", "0.2x",
              "the queue_name (default arq:queue); job and result keys are fixed (arq:job:, arq:result:)",
              {JOB: "_expires on enqueue_job (default: a day after the job was due)",
               RESULT: "keep_result / keep_result_forever of the function or worker (default 1 hour)"})
CHANNELS_REDIS = Library("channels_redis", "4.x", "the prefix option of the channel layer (default asgi)",
                         {STATE: "group_expiry (default 1 day) and expiry (messages, default 60 s)"})
REDIS_LOCK = Library("python-redis-lock", "3.x-4.x",
                     "none: the lock: and lock-signal: prefixes are fixed",
                     {LOCK: "expire= on Lock (None holds the lock until it is released, forever if its holder dies)"})

_P = r"(?P<prefix>.*?)"
_Q = r"(?:[^:]+)"  # a queue name: literal or a placeholder

SCHEMAS = (
    # celery/backends/base.py KeyValueStoreBackend: task_keyprefix 'celery-task-meta-',
    # group_keyprefix 'celery-taskset-meta-', chord_keyprefix 'chord-unlock-'; the id a uuid unless the
    # application gives one (apply_async(task_id=...)).
    KeySchema(CELERY, "celery-task-meta-<task id>", _P + r"celery-task-meta-.+", ("string",),
              "task result", RESULT),
    KeySchema(CELERY, "celery-taskset-meta-<group id>", _P + r"celery-taskset-meta-.+", ("string",),
              "group result", RESULT),
    # kombu/transport/redis.py: the queue is a list named after it (default queue 'celery'),
    # bindings in the set '_kombu.binding.<exchange>', unacked messages in 'unacked' / 'unacked_index'.
    KeySchema(CELERY, "celery", _P + r"celery", ("list",), "broker queue", QUEUE),
    # kombu/transport/redis.py Channel._q_for_pri: a message with a priority goes to '<queue><sep><step>'
    # (sep '\x06\x16', priority_steps [0, 3, 6, 9]; step 0 is the queue itself).
    KeySchema(CELERY, "<queue>\\x06\\x16<priority step>", _P + r"[^\x06\x16]+\x06\x16(?:\{id\}|[0-9]+)", ("list",),
              "priority queue", QUEUE,
              name_setting="broker_transport_options={'sep': ..., 'priority_steps': [...]} (kombu's priority "
                           "separator, default '\\x06\\x16', and steps)"),
    KeySchema(CELERY, "_kombu.binding.<exchange>", _P + r"_kombu\.binding(?:_permanent)?\.[^:]+", ("set",),
              "queue binding", STATE),
    KeySchema(CELERY, "unacked", _P + r"unacked(?:_index|_mutex)?", ("hash", "zset", "string"),
              "unacknowledged messages", QUEUE, needs=r"_kombu\.binding\..+"),
    # rq/job.py Job.key_for 'rq:job:<id>' (and '<id>:dependents'); rq/results.py 'rq:results:<id>';
    # rq/queue.py 'rq:queue:<name>';
    # rq/registry.py 'rq:<finished|failed|started|deferred|scheduled|canceled>:<queue>'.
    KeySchema(RQ, "rq:job:<id>", r"rq:job:\{(?:uuid|hex|\*)\}", ("hash",), "job", JOB),
    KeySchema(RQ, "rq:job:<id>:dependents", r"rq:job:\{(?:uuid|hex|\*)\}:dependents", ("set",),
              "job dependents", STATE),
    # Job.dependencies_key: f'{redis_job_namespace_prefix}:{id}:dependencies', the prefix ending in ':' already:
    # 'rq:job::<id>:dependencies' (one ':' in RQ before 1.9).
    KeySchema(RQ, "rq:job::<id>:dependencies", r"rq:job::?\{(?:uuid|hex|\*)\}:dependencies", ("set",),
              "job dependencies", STATE),
    KeySchema(RQ, "rq:results:<id>", r"rq:results:\{(?:uuid|hex|\*)\}", ("stream",), "job result", RESULT),
    KeySchema(RQ, "rq:queue:<name>", r"rq:queue:" + _Q, ("list",), "queue", QUEUE),
    KeySchema(RQ, "rq:<registry>:<queue>", r"rq:(?:finished|failed|started|deferred|scheduled|canceled):" + _Q,
              ("zset",), "job registry", REGISTRY),
    KeySchema(RQ, "rq:worker:<name>", r"rq:worker:[^:]+", ("hash",), "worker", STATE),
    # worker.py, scheduler.py, group.py, executions.py, cron.py, rate_limit.py: the workers, groups, executions,
    # scheduler locks, cron and rate-limit keys.
    KeySchema(RQ, "rq:<bookkeeping>",
              r"rq:(?:queues|workers|groups|clean_groups|suspended|rl-keys|cron_jobs|cron_schedulers|workers:" + _Q +
              r"|clean_registries:" + _Q + r"|scheduler-lock:" + _Q +
              r"|(?:scheduler|scheduler_instance|cron_scheduler|group|execution|executions|rl|intermediate):.+"
              r"|cron_job:.+:jobs)",
              ("set", "string", "hash", "zset", "list"), "bookkeeping", STATE),
    # resque lib/resque/data_store.rb: 'queues', 'queue:<name>', 'failed', 'workers', 'worker:<id>',
    # 'stat:<name>' under the 'resque' namespace.
    KeySchema(RESQUE, "resque:queue:<name>", r"resque:queue:" + _Q, ("list",), "queue", QUEUE),
    # lib/resque/failure/redis.rb: every failure is RPUSHed onto 'failed', which nothing trims.
    KeySchema(RESQUE, "resque:failed", r"resque:failed", ("list",), "failed jobs", FAILED),
    # (connection_test_key is node-resque's, written when it connects.)
    # resque-scheduler lib/resque/scheduler/delaying_extensions.rb (node-resque core/queue.js enqueueAt keeps
    # it): 'delayed:<unix time>' lists of jobs, 'timestamps:<job as JSON>' sets of the 'delayed:<time>' keys
    # holding it, and the 'delayed_queue_schedule' sorted set of the times.
    KeySchema(RESQUE, "resque:delayed:<timestamp>", r"resque:delayed:(?:\{(?:ts|id)\}|[0-9]+)", ("list",),
              "delayed jobs", QUEUE),
    KeySchema(RESQUE, "resque:timestamps:<job>", r"resque:timestamps:\{.*\}", ("set",), "delayed job times",
              STATE),
    KeySchema(RESQUE, "resque:delayed_queue_schedule", r"resque:delayed_queue_schedule", ("zset",),
              "delayed schedule", STATE),
    KeySchema(RESQUE, "resque:<bookkeeping>", r"resque:(?:queues|workers|worker:.+|stat:[^:]+|connection_test_key)",
              ("set", "string"), "bookkeeping", STATE),
    # sidekiq lib/sidekiq/client.rb (atomic_push): 'queues' set, 'queue:<name>' lists; api.rb: 'schedule',
    # 'retry', 'dead' sorted sets (DeadSet#kill trims to dead_max_jobs / dead_timeout_in_seconds);
    # launcher.rb: 'processes', 'stat:processed[:<date>]', 'stat:failed[:<date>]'.
    KeySchema(SIDEKIQ, "queue:<name>", _P + r"queue:" + _Q, ("list",), "queue", QUEUE, needs="queues"),
    KeySchema(SIDEKIQ, "queues", _P + r"queues", ("set",), "queue names", STATE, needs="queue:.+"),
    KeySchema(SIDEKIQ, "dead", _P + r"dead", ("zset",), "dead jobs", REGISTRY, needs="queues"),
    KeySchema(SIDEKIQ, "retry / schedule", _P + r"(?:retry|schedule)", ("zset",), "jobs to run later", REGISTRY,
              needs="queues"),
    KeySchema(SIDEKIQ, "stat:<name>[:<date>]", _P + r"stat:(?:processed|failed)(?::\{date\})?", ("string",),
              "counter", STATE, needs="queues"),
    # bullmq src/classes/queue-keys.ts (dist/cjs/classes/queue-keys.js): '<prefix>:<queue>:<type>' for wait,
    # active, paused, completed, failed, delayed, prioritized, events (stream), meta, id, marker, stalled-check,
    # ...; jobs are '<prefix>:<queue>:<job id>' hashes with '<job id>:logs' lists. Bull lib/queue.js: the same
    # keys, without events, meta and marker (which tell a BullMQ queue, see recognize.py).
    # The queue's own keys first: any other hash under the queue is a job (BullMQ's and Bull's job ids are
    # counters by default, and whatever the jobId option says otherwise: uuids, 'report-7').
    KeySchema(BULL_OR_BULLMQ, "bull:<queue>:<state>", _P + r"bull:" + _Q +
              r":(?:completed|failed|delayed|prioritized|wait|active|paused|waiting-children)", ("zset", "list"),
              "job state set", REGISTRY),
    KeySchema(BULL_OR_BULLMQ, "bull:<queue>:events", _P + r"bull:" + _Q + r":events", ("stream",),
              "event stream", STATE),
    KeySchema(BULL_OR_BULLMQ, "bull:<queue>:<bookkeeping>", _P + r"bull:" + _Q +
              r":(?:meta|id|marker|stalled-check|stalled|limiter|repeat|de:[^:]+|pc|metrics:[^:]+)",
              ("hash", "string", "zset", "set", "list"), "bookkeeping", STATE),
    KeySchema(BULL_OR_BULLMQ, "bull:<queue>:<job id>", _P + r"bull:" + _Q + r":[^:]+", ("hash",), "job", JOB),
    # classes/job.js, redis-queue-backend.js and flow-producer.js: beside a job, its logs, the lock of the
    # worker running it, and for a parent of a flow the children still to run ('dependencies') and the
    # results of those done ('processed'; 'failed', 'unsuccessful' for the others).
    KeySchema(BULL_OR_BULLMQ, "bull:<queue>:<job id>:logs", _P + r"bull:" + _Q + r":[^:]+:logs", ("list",),
              "job log", JOB),
    KeySchema(BULL_OR_BULLMQ, "bull:<queue>:<job id>:dependencies", _P + r"bull:" + _Q + r":[^:]+:dependencies",
              ("set",), "children to run", STATE),
    KeySchema(BULL_OR_BULLMQ, "bull:<queue>:<job id>:processed", _P + r"bull:" + _Q +
              r":[^:]+:(?:processed|failed|unsuccessful)", ("hash", "zset"), "children's results", JOB),
    KeySchema(BULL_OR_BULLMQ, "bull:<queue>:<job id>:lock", _P + r"bull:" + _Q + r":[^:]+:lock", ("string",),
              "job lock", STATE),
    # bee-queue lib/queue.js: keyPrefix '<prefix>:<queue>:'; 'jobs' (one hash of every job), 'id',
    # 'waiting', 'active', 'succeeded', 'failed', 'delayed', 'stalling', 'stallBlock'.
    KeySchema(BEE_QUEUE, "bq:<queue>:jobs", _P + r"bq:" + _Q + r":jobs", ("hash",), "every job", REGISTRY),
    KeySchema(BEE_QUEUE, "bq:<queue>:<state>", _P + r"bq:" + _Q +
              r":(?:id|waiting|active|succeeded|failed|delayed|stalling|stallBlock|earlierDelayed)",
              ("string", "list", "set", "zset"), "job state", REGISTRY),
    # django/contrib/sessions/backends/cache.py KEY_PREFIX 'django.contrib.sessions.cache' (cached_db:
    # 'django.contrib.sessions.cached_db'), through django/core/cache/backends/base.py
    # default_key_func '<KEY_PREFIX>:<VERSION>:<key>'.
    KeySchema(DJANGO_SESSIONS, "<KEY_PREFIX>:<VERSION>:django.contrib.sessions.cache<session key>",
              r"(?P<prefix>[^:]*:(?:\{id\}|[0-9]+):)django\.contrib\.sessions\.cache(?:d_db)?\{\*\}",
              ("string",), "session", SESSION),
    # flask_caching/__init__.py: CACHE_KEY_PREFIX defaults to 'flask_cache_'; backends/rediscache.py puts
    # key_prefix before every key.
    KeySchema(FLASK_CACHING, "flask_cache_<key>", r"flask_cache_.+", ("string",), "cache entry", CACHE),
    # actionview/lib/action_view/helpers/cache_helper.rb digest_path_from_template: '<virtual path>:<digest>'
    # (ActiveSupport::Digest.hexdigest, 32 hex digits), expanded with the :views namespace by
    # ActiveSupport::Cache.expand_cache_key: 'views/<template>:<digest>/<cache key>' after the store's
    # 'namespace:'. (Keys written by Rails.cache.write are the application's own: not recognizable by name.)
    KeySchema(RAILS_CACHE, "<namespace>:views/<template>:<digest>/<cache key>",
              r"(?P<prefix>(?:.*:)?)views/[^:]+:(?:\{hex\}|[0-9a-f]{32})(?:/.*)?", ("string",), "view fragment",
              CACHE),
    # Illuminate/Cache/RedisStore.php: '<redis prefix><cache prefix>:<key>' (setPrefix adds the ':'); the
    # skeleton's config/database.php and config/cache.php default the prefixes to '<app>_database_' and
    # '<app>_cache' (Laravel 8) or '<app>_cache_' (9 and later).
    KeySchema(LARAVEL_CACHE, "<app>_database_<app>_cache:<key>", r"[a-z0-9_]+_database_[a-z0-9_]+_cache_?:.+",
              ("string",), "cache entry", CACHE),
    # Illuminate/Queue/RedisQueue.php getQueue: 'queues:<name>' lists, with ':delayed' and ':reserved' sorted
    # sets and a ':notify' list, after the redis prefix ('queues:<name>' alone is too plain to claim).
    KeySchema(LARAVEL_QUEUE, "<app>_database_queues:<name>", r"(?P<prefix>[a-z0-9_]+_database_)queues:[^:]+",
              ("list",), "queue", QUEUE),
    KeySchema(LARAVEL_QUEUE, "<app>_database_queues:<name>:<delayed|reserved|notify>",
              r"(?P<prefix>[a-z0-9_]+_database_)queues:[^:]+:(?:delayed|reserved|notify)", ("zset", "list"),
              "job state", QUEUE),
    # laravel/horizon src/Repositories/RedisJobRepository.php: 'horizon:<job id>' hashes and the sorted
    # sets recent_jobs, pending_jobs, completed_jobs, failed_jobs, ...
    KeySchema(HORIZON, "horizon:<job id>", r"horizon:\{(?:id|uuid)\}", ("hash",), "job", JOB),
    KeySchema(HORIZON, "horizon:<list>", r"horizon:[a-z_:]+(?:\{\*\})?", ("zset", "hash", "set", "string"),
              "job index", REGISTRY),
    # limits/limits.py RateLimitItem.key_for: 'LIMITER/<identifiers>/<amount>/<multiples>/<granularity>';
    # the storage's key_prefix ('LIMITS') leads.
    KeySchema(LIMITS, "LIMITS:LIMITER/<id>/.../<amount>/<multiples>/<granularity>",
              r"(?P<prefix>[^:]*?)LIMITS:LIMITER/.*", ("string", "list", "hash"), "rate-limit window", RATE_LIMIT),
    # storage/redis.py _current_window_key / _previous_window_key (the sliding window counter): the key in
    # braces, a hash tag that keeps the current and previous ('/-1') windows in one cluster slot.
    KeySchema(LIMITS, "LIMITS:{LIMITER/...}[/-1]",
              r"(?P<prefix>[^:]*?)LIMITS:\{(?:LIMITER/.*|\{[a-z0-9*]+\})\}(?:/-1)?", ("string", "list", "hash"),
              "rate-limit window", RATE_LIMIT),
    # connect-redis dist/esm/index.js: this.prefix = opts.prefix ?? 'sess:'; key = prefix + sid.
    KeySchema(EXPRESS_SESSION, "sess:<session id>", r"sess:\{(?:\*|b64|uuid|hex)\}", ("string",),
              "session", SESSION),
    # rate-limit-redis dist/index.mjs: this.prefix = options.prefix ?? 'rl:'; key = prefix + client key.
    KeySchema(EXPRESS_RATE_LIMIT, "rl:<client key>", r"rl:.+", ("string",), "rate-limit counter", RATE_LIMIT),
    # dramatiq/brokers/redis.py (namespace 'dramatiq') and brokers/redis/dispatch.lua: '<namespace>:<queue>',
    # '<queue>.msgs', '<queue>.XQ' (dead letters), '__heartbeats__', '__acks__.<worker>.<queue>'.
    KeySchema(DRAMATIQ, "dramatiq:<queue>[.msgs|.DQ|.XQ]", r"dramatiq:[^:]+", ("list", "hash", "zset", "set"),
              "queue", QUEUE),
    # dramatiq/results/backend.py build_message_key: the md5 hex of '<namespace>:<queue>:<actor>:<message id>'
    # (with use_namespace_prefix_keys, that text itself); backends/redis.py _store LPUSHes the result and
    # PEXPIREs it. A bare md5 is anyone's: claimed only beside Dramatiq's queue.
    KeySchema(DRAMATIQ, "<md5 of the message key>", r"\{hex\}", ("list",), "message result", RESULT,
              needs=r"dramatiq:.+"),
    KeySchema(DRAMATIQ, "dramatiq-results:<queue>:<actor>:<message id>", r"dramatiq-results:.+", ("list",),
              "message result", RESULT),
    # huey/storage.py RedisStorage: 'huey.redis.<name>' queue, 'huey.schedule.<name>', 'huey.results.<name>',
    # 'huey.counters.<name>'.
    KeySchema(HUEY, "huey.<redis|schedule|counters>.<name>", r"huey\.(?:redis|schedule|counters)\..+",
              ("list", "zset", "hash"), "queue", QUEUE),
    KeySchema(HUEY, "huey.results.<name>", r"huey\.results\..+", ("hash",), "task results", RESULT),
    # redis_om/model/model.py RedisModel.make_key / key(): '<global_key_prefix>:<model_key_prefix>:<pk>'; the model
    # prefix defaults to '<module>.<ClassName>', the pk is a ULID.
    KeySchema(REDIS_OM, "<global prefix>:<module>.<Model>:<pk>",
              r"(?P<prefix>.*?):(?:[a-z_][a-z0-9_]*\.)+[A-Z][A-Za-z0-9]*:\{\*\}", ("hash", "ReJSON-RL", "module"),
              "model", RECORD),
    # With Meta.model_key_prefix (and global_key_prefix) set, nothing of the name is the library's but the
    # primary key: a ULID (model.py ULIDPrimaryKey), 26 Crockford base32 characters, checked on the examples.
    KeySchema(REDIS_OM, "<global prefix>:<model prefix>:<ULID pk>", r"(?P<prefix>.+:)\{\*\}",
              ("hash", "ReJSON-RL", "module"), "model", RECORD, examples=r".*:[0-7][0-9A-HJKMNP-TV-Z]{25}"),
    # arq/constants.py: 'arq:job:<id>' (uuid4 hex unless _job_id), 'arq:result:<id>', 'arq:in-progress:<id>',
    # 'arq:retry:<id>', the default queue 'arq:queue' with '<queue>:health-check', 'arq:abort'.
    KeySchema(ARQ, "arq:job:<id>", r"arq:job:.+", ("string",), "job", JOB),
    KeySchema(ARQ, "arq:result:<id>", r"arq:result:.+", ("string",), "job result", RESULT),
    KeySchema(ARQ, "arq:<in-progress|retry>:<id>", r"arq:(?:in-progress|retry):.+", ("string",), "job state",
              STATE),
    KeySchema(ARQ, "arq:queue", r"arq:(?:queue|abort)", ("zset",), "queue", QUEUE),
    KeySchema(ARQ, "arq:queue:health-check", r".+:health-check", ("string",), "worker health", STATE,
              needs=r"arq:.+"),
    # channels_redis/core.py _group_key '<prefix>:group:<group>' (sorted sets of channels, expiring after
    # group_expiry); a process-specific channel's messages in '<prefix><channel up to !>' ('asgispecific.<hex>!').
    KeySchema(CHANNELS_REDIS, "asgi:group:<group>", _P + r"asgi:group:.+", ("zset",), "group", STATE),
    KeySchema(CHANNELS_REDIS, "asgi<channel>!", _P + r"asgi[^:]*!.*", ("zset",), "channel", STATE),
    # redis_lock/__init__.py Lock: 'lock:<name>' holds the owner's id, 'lock-signal:<name>' wakes waiters.
    # The 'lock:' prefix is python-redis-lock's, and a common choice of applications for their own locks (the
    # key-design guides recommend it): claimed only beside a 'lock-signal:' key, which a release leaves for
    # signal_expire (1 s by default). Otherwise only the values tell (the owner's 24-character id).
    KeySchema(REDIS_LOCK, "lock:<name>", r"lock:.+", ("string",), "lock", LOCK, needs=r"lock-signal:.+"),
    KeySchema(REDIS_LOCK, "lock-signal:<name>", r"lock-signal:.+", ("list",), "lock signal", STATE),
    # spring-session-data-redis RedisIndexedSessionRepository (3.5.7; namespace 'spring:session' by default):
    # '<namespace>:sessions:<id>' hashes of RedisSessionMapper's creationTime, lastAccessedTime,
    # maxInactiveInterval and sessionAttr:<name> (values JDK-serialized by default), expiring 5 minutes after
    # the session; createShadowKey's '<namespace>:sessions:expires:<id>', an empty string expiring with the
    # session, whose expired event tells the repository to clean up.
    KeySchema(SPRING_SESSION, "spring:session:sessions:<id>", _P + r"spring:session:sessions:\{uuid\}", ("hash",),
              "session", SESSION),
    KeySchema(SPRING_SESSION, "spring:session:sessions:expires:<id>",
              _P + r"spring:session:sessions:expires:\{uuid\}", ("string",), "session expiry marker", SESSION),
    # MinuteBasedRedisSessionExpirationStore (in RedisIndexedSessionRepository.java): a set per minute of expiry
    # (epoch ms), 'expirations:<minute>' of 'expires:<id>'; its EXPIRE comes before the SADD, so the first session
    # of a minute leaves it without a TTL, and cleanupExpiredSessions deletes the set once its minute is past.
    KeySchema(SPRING_SESSION, "spring:session:expirations:<minute>",
              _P + r"spring:session:expirations:\{(?:ts|id)\}", ("set",), "expiry index", STATE),
    # RedisIndexedSessionRepository.getPrincipalKey: '<namespace>:index:<PRINCIPAL_NAME_INDEX_NAME>:<principal>',
    # a set of the ids of a user's sessions, added to by saveDelta when the session holds the principal-name
    # attribute or SPRING_SECURITY_CONTEXT. No TTL: cleanupPrincipalIndex removes an id when the session's
    # expires key expires or is deleted (the keyevents that ConfigureNotifyKeyspaceEventsAction turns on with
    # notify-keyspace-events Egx), and the set goes with its last id: it holds the users with live sessions.
    KeySchema(SPRING_SESSION, "spring:session:index:<PRINCIPAL_NAME_INDEX_NAME>:<principal>",
              _P + r"spring:session:index:org\.springframework\.session\.FindByIndexNameSessionRepository"
                   r"\.PRINCIPAL_NAME_INDEX_NAME:.+", ("set",), "principal index", STATE),
    # @socket.io/redis-streams-adapter lib/adapter.ts createAdapter: one stream, streamName default 'socket.io'.
    # (The pub/sub @socket.io/redis-adapter writes no keys: driven in make_library_dump.py, it left none.)
    KeySchema(SOCKET_IO, "socket.io", r"socket\.io", ("stream",), "event stream", QUEUE),
    # lib/adapter.ts persistSession: 'sio:session:<pid>' (sessionKeyPrefix), a string that expires after
    # connectionStateRecovery.maxDisconnectionDuration.
    KeySchema(SOCKET_IO, "sio:session:<pid>", r"sio:session:\{(?:\*|b64)\}", ("string",), "session", SESSION),
)

#: Key kinds whose names hold nothing of the library's: a cache store's entries are '<prefix><key>' with
#: a key of the user's choosing. They are told by a key of the same store that names the prefix.
DJANGO_CACHE_ENTRY = KeySchema(DJANGO_CACHE, "<KEY_PREFIX>:<VERSION>:<key>", "", ("string",), "cache entry", CACHE)
RAILS_CACHE_ENTRY = KeySchema(RAILS_CACHE, "<namespace>:<key>", "", ("string",), "cache entry", CACHE)

#: (library of a recognized key, entry kind): other string patterns under the prefix of that key are
#: entries of the same store. Django's session store writes through the cache, under its KEY_PREFIX
#: and VERSION; Action View's fragments go through Rails.cache, under the store's namespace.
STORE_ENTRIES = ((DJANGO_SESSIONS, DJANGO_CACHE_ENTRY), (RAILS_CACHE, RAILS_CACHE_ENTRY))
