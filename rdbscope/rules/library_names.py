"""Names a library owns: said once per library, instead of linting them (NAM015)."""

from ..findings import Severity
from .base import Rule


class LibraryNames(Rule):
    """Keys named by a library (Celery, RQ, BullMQ, Django, ...), not by the application.

    ## What it does
    Recognizes the keys that job queues, caches, session stores and rate limiters write
    (`celery-task-meta-{uuid}`, `rq:job:{uuid}`, `bull:emails:{id}`,
    `LIMITS:LIMITER/login/{ip}/1000/1/hour`, `flask_cache_{*}`, ...; the table is
    `rdbscope.libraries.SCHEMAS`) and reports, once per library, which patterns it owns and
    the setting that puts a prefix before them (and, where one shapes the rest of the name,
    that setting too: kombu's priority separator). The naming rules (NAM001-NAM014) and the
    cluster rules about names (CLU002, CLU003: a library's hash tags, such as limits'
    `LIMITS:{LIMITER/...}`) say nothing about these patterns.

    ## Why is this bad?
    OneUptime's guide asks for namespaced, lower-case names, but these are not the
    user's to write: the names are the library's, and the user can only prefix them (Celery's
    `global_keyprefix`, Django's `KEY_PREFIX`, BullMQ's `prefix`). Blaming them on the
    user (capitals in `LIMITS:LIMITER`, no namespace in `celery-task-meta-…`) would be
    noise; knowing who owns a third of the keyspace is not.

    ## Example
    ```
    celery-task-meta-0b4c6f0e-3f7c-4d51-9a56-0c1d3c1f4b8a
    flask_cache_user_42_feed
    ```

    ## Use instead
    Nothing to change; to tell applications apart, set the library's prefix
    (`result_backend_transport_options={"global_keyprefix": "shop"}`,
    `CACHE_KEY_PREFIX="shop_"`).
    """

    code = "NAM015"
    bounded = True  # reads only what is per pattern
    name = "library-names"
    severity = Severity.INFO
    message = ("{library} owns {patterns_text} ({keys}, {memory}): the names are the library's; "
               "prefix: {prefix_setting}{names_text}")

    def check(self, ctx, options):
        by_library = {}
        for g, owner in enumerate(ctx.owners):
            if owner is not None:
                by_library.setdefault((int(ctx.groups.db[g]), owner.library.name), []).append((g, owner))
        for (db, name), owned in sorted(by_library.items()):
            groups = sorted((g for g, _owner in owned), key=lambda g: -int(ctx.pattern_n_keys[g]))
            patterns = [ctx.groups.pattern[g] for g in groups]
            shown = ", ".join(patterns[:3]) + (f" and {len(patterns) - 3} more" if len(patterns) > 3 else "")
            library = owned[0][1].library
            name_settings = sorted({owner.schema.name_setting for _g, owner in owned if owner.schema.name_setting})
            names_text = "".join(f"; names: {setting}" for setting in name_settings)
            yield self.dump_finding(
                ctx, n_keys=int(sum(ctx.pattern_n_keys[g] for g in groups)),
                memory_bytes=int(sum(ctx.pattern_memory[g] for g in groups)),
                examples=ctx.pattern_hit(groups[0]).examples, db=db, library=name,
                patterns=patterns, prefix_setting=library.prefix_setting, name_settings=name_settings,
                evidence=library.evidence, say={"patterns_text": shown, "names_text": names_text})
