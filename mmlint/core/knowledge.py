"""What mmlint knows about the calls serving frameworks make: named sets of
blocking and CPU-heavy calls, each entry with the reason it costs.

The sets feed one list of patterns (``Settings.blocking_calls``): MM005
reports a call matching one, MM003 / MM004 weigh a coroutine that reaches one
as heavy. A set is *on by default* when its patterns are precise (they name a
module function, or a method on a receiver whose name says what it is); a set
whose patterns would also match unrelated calls is *opt-in*. The
configuration turns sets on (``[blocking-calls] extend-sets``) or off
(``drop-sets``) by name.

Patterns are matched against a call's dotted callee after the file's imports
are applied (``from ray import get as ray_get`` then ``ray_get(x)`` is
``ray.get``), and a pattern starting with ``*`` also matches the callee's
attribute chain on its own (``*.future.wait`` matches ``future.wait()``). A
computed receiver keeps its last attribute chain: ``self.get_tokenizer().encode``
is ``<expr>.encode`` to the weight and ``get_tokenizer().encode`` to these
patterns. A call that is awaited, or handed to ``create_task`` / ``gather`` /
``wait_for``, is never blocking: it only creates a coroutine (so
``await sock.recv_multipart()`` on a ``zmq.asyncio`` socket never matches).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from mmlint.core.twins import TwinPair


@dataclass(frozen=True, slots=True)
class KnownCall:
    pattern: str
    reason: str  # what it does to the event loop: "tokenizes text"


@dataclass(frozen=True, slots=True)
class KnowledgeSet:
    name: str
    default: bool  # on unless dropped (precise), or opt-in
    doc: str
    calls: tuple[KnownCall, ...]
    # Its calls cost in proportion to their input (tokenizing, compressing):
    # given only a literal, a constant or a constant-bounded slice, they are
    # cheap (``tokenizer.encode(PLACEHOLDER)``, ``convert_ids_to_tokens(ids[-8:])``).
    sized_by_input: bool = False
    # Its calls cost only in proportion to their input, with no fixed cost of
    # note (a digest, base64, compression: bytes in, bytes out): an input
    # short by evidence, an identifier, a name, a path or a tested http(s)
    # URL (mmlint.facts.input_size), makes them cheap too. Not a tokenizer's:
    # each call has a fixed cost of its own and is made per token, in loops
    # over the output, where a short input is no evidence of a light def.
    light_when_short: bool = False
    # What shows one of its calls cheap, when the source can
    # (mmlint.facts.input_size.cost_evidence), for the documentation; "" for
    # none. The sqlite set's: a keyed ``SELECT`` whose one row ``fetchone()``
    # fetches, a ``PRAGMA`` setting, a context manager's ``commit()`` after
    # its ``yield`` (its with-body's statements carry the cost); a literal is
    # no such evidence (a literal ``INSERT`` writes).
    light_by_evidence: str = ""
    # The patterns ``light_by_evidence`` is about, when not all of the set's:
    # file-io's writes (a text the source fixes), never its reads or ``open``.
    evidence_patterns: tuple[str, ...] = ()


def _calls(reason: str, *patterns: str) -> tuple[KnownCall, ...]:
    return tuple(KnownCall(pattern, reason) for pattern in patterns)


_TOKENIZE = "tokenizes text"
_TEMPLATE = "renders a chat template"

KNOWLEDGE_SETS: tuple[KnowledgeSet, ...] = (
    KnowledgeSet(
        "sleep",
        True,
        "`time.sleep`: the whole loop sleeps.",
        _calls("sleeps", "time.sleep"),
    ),
    KnowledgeSet(
        "http-sync",
        True,
        "Synchronous HTTP clients (`requests`, `httpx`'s module functions, `urllib`).",
        _calls(
            "waits for a network round trip",
            "requests.get",
            "requests.post",
            "requests.put",
            "requests.patch",
            "requests.delete",
            "requests.head",
            "requests.options",
            "requests.request",
            "httpx.get",
            "httpx.post",
            "httpx.put",
            "httpx.patch",
            "httpx.delete",
            "httpx.head",
            "httpx.request",
            "httpx.stream",
            "urllib.request.urlopen",
            "urllib3.request",
        ),
    ),
    KnowledgeSet(
        "subprocess",
        True,
        "Running a child process and waiting for it.",
        _calls(
            "waits for a child process",
            "subprocess.run",
            "subprocess.call",
            "subprocess.check_call",
            "subprocess.check_output",
            "subprocess.getoutput",
            "subprocess.getstatusoutput",
            "os.system",
            "os.popen",
            "*.communicate",
        ),
    ),
    KnowledgeSet(
        "tokenizers",
        True,
        "Tokenizer calls of `transformers` / `tokenizers` and the usual wrappers, on a receiver "
        "named as a tokenizer (`self.tokenizer.encode`, `get_tokenizer().decode`, `tokenizer(text)`).",
        _calls(
            _TOKENIZE,
            "*tokenizer.encode",
            "*tokenizer.decode",
            "*tokenizer.batch_decode",
            "*tokenizer.batch_encode_plus",
            "*tokenizer.encode_plus",
            "*tokenizer.encode_batch",
            "*tokenizer.decode_batch",
            "*tokenizer.convert_ids_to_tokens",
            "*tokenizer.convert_tokens_to_string",
            "*tokenizer.tokenize",
            "*tokenizer().encode",
            "*tokenizer().decode",
            "*tokenizer().batch_decode",
            "*tokenizer().tokenize",
            "*.tokenizer",
            "*tokenizer.__call__",
        ),
        sized_by_input=True,
    ),
    KnowledgeSet(
        "chat-templates",
        True,
        "Chat-template rendering: `apply_chat_template` and the harmony renderers.",
        _calls(
            _TEMPLATE,
            "*.apply_chat_template",
            "*.render_conversation_for_completion",
            "*.render_conversation",
            "*.render_conversation_for_training",
            "*.render_for_completion",
        ),
    ),
    KnowledgeSet(
        "image-decoding",
        True,
        "Image and video decoding: PIL, OpenCV, decord, torchvision's io. `PIL.Image.open` is not one: it "
        "reads only the header, and the decode happens at `.load()`, `.convert()` or `.resize()` (offload "
        "those, or the open and the decode together).",
        _calls(
            "decodes an image or video",
            "PIL.Image.frombytes",
            "*image.load",
            "*img.load",
            "*open().load",
            "*open().convert",
            "*open().resize",
            "cv2.imread",
            "cv2.imdecode",
            "cv2.VideoCapture",
            "decord.VideoReader",
            "torchvision.io.read_video",
            "torchvision.io.read_image",
            "torchvision.io.decode_image",
            "torchvision.io.decode_jpeg",
            "torchvision.io.VideoReader",
            "*.get_frames_as_tensor",
            "*vr.get_batch",
            "*video_reader.get_batch",
            "*.load_image",
            "*.load_video",
        ),
    ),
    KnowledgeSet(
        "image-processing",
        True,
        "Resizing and converting a decoded image, on a receiver named as an image (`image.resize`, `img.convert`).",
        _calls(
            "resizes or converts an image",
            "*image.resize",
            "*img.resize",
            "*image.convert",
            "*img.convert",
            "*image.thumbnail",
            "*img.thumbnail",
        ),
    ),
    KnowledgeSet(
        "audio-decoding",
        True,
        "Audio loading and decoding: `librosa`, `soundfile`, `torchaudio`, and `load_audio` helpers.",
        _calls(
            "decodes audio",
            "librosa.load",
            "librosa.resample",
            "soundfile.read",
            "torchaudio.load",
            "*.load_audio",
        ),
    ),
    KnowledgeSet(
        "video-frames",
        False,
        "Frame batches read from any receiver's `get_batch`: opt-in, the name is not unique to video "
        "readers (`vr.get_batch` and `get_frames_as_tensor` are in `image-decoding`).",
        _calls("decodes video frames", "*.get_batch"),
    ),
    KnowledgeSet(
        "ray",
        True,
        "Ray's blocking object and actor look-ups.",
        _calls("waits for Ray", "ray.get", "ray.wait", "ray.get_actor"),
    ),
    KnowledgeSet(
        "zmq-sync",
        True,
        "Synchronous ZeroMQ receives and `Context.term()`. A `zmq.asyncio` socket's receive is awaited, "
        "which never matches; sends are left out (a `zmq.asyncio` send is often not awaited).",
        _calls(
            "waits on a ZeroMQ socket",
            "*.recv_multipart",
            "*.recv_pyobj",
            "*.recv_json",
            "*.recv_string",
            "*.recv_serialized",
            "*context.term",
            "*ctx.term",
            "zmq.Context.term",
        ),
    ),
    KnowledgeSet(
        "zmq-send",
        False,
        "Synchronous ZeroMQ sends: opt-in, since a `zmq.asyncio` socket's send is often left unawaited.",
        _calls(
            "may wait on a ZeroMQ socket",
            "*.send_multipart",
            "*.send_pyobj",
            "*.send_json",
            "*.send_string",
        ),
    ),
    KnowledgeSet(
        "thread-waits",
        True,
        "`threading` / `multiprocessing` waits on a receiver named for what it is "
        "(`self.thread.join()`, `done_event.wait()`, `result_queue.get()`, `lock.acquire()`).",
        _calls(
            "waits for another thread or process",
            "*thread.join",
            "*process.join",
            "*proc.join",
            "*worker.join",
            "*event.wait",
            "*barrier.wait",
            "*condition.wait",
            "*cond.wait",
            "*queue.get",
            "*queue.join",
            "*lock.acquire",
            "*semaphore.acquire",
            "*proc.wait",
            "*process.wait",
        ),
    ),
    KnowledgeSet(
        "futures",
        True,
        "`concurrent.futures` waits. `.result()` on a future from `executor.submit(...)` is known without a "
        "pattern; `future.result()` by name alone is not matched (an asyncio future is done once awaited).",
        _calls(
            "waits for a future",
            "concurrent.futures.wait",
            "concurrent.futures.as_completed",
        ),
    ),
    KnowledgeSet(
        "torch-distributed",
        True,
        "`torch.distributed` barriers and store waits, `torch.cuda.synchronize`.",
        _calls(
            "waits for other ranks or the GPU",
            "torch.distributed.barrier",
            "torch.distributed.monitored_barrier",
            "*store.wait",
            "torch.cuda.synchronize",
            "*stream.synchronize",
        ),
    ),
    KnowledgeSet(
        "distributed-store",
        False,
        "A distributed store's `get` / `set` (`store.get(key)`): opt-in, `store` also names plain dicts.",
        _calls("makes a store round trip", "*store.get", "*store.set", "*store.add"),
    ),
    KnowledgeSet(
        "compression",
        True,
        "Whole-buffer compression and decompression (`zlib`, `gzip`, `lzma`, `bz2`).",
        _calls(
            "compresses or decompresses a buffer",
            "zlib.compress",
            "zlib.decompress",
            "gzip.compress",
            "gzip.decompress",
            "lzma.compress",
            "lzma.decompress",
            "bz2.compress",
            "bz2.decompress",
        ),
        sized_by_input=True,
        light_when_short=True,
    ),
    KnowledgeSet(
        "encoding-hashing",
        True,
        "Whole-payload base64 and digests (`base64.b64decode`, `hashlib.sha256(data)`), as of request media.",
        _calls(
            "decodes or encodes a whole payload",
            "base64.b64decode",
            "base64.b64encode",
            "base64.urlsafe_b64decode",
            "base64.urlsafe_b64encode",
            "base64.decodebytes",
            "base64.encodebytes",
            "pybase64.b64decode",
            "pybase64.b64encode",
        )
        + _calls(
            "hashes a whole payload",
            "hashlib.md5",
            "hashlib.sha1",
            "hashlib.sha224",
            "hashlib.sha256",
            "hashlib.sha384",
            "hashlib.sha512",
            "hashlib.blake2b",
            "hashlib.blake2s",
            "hashlib.sha3_256",
            "hashlib.new",
            *(
                f"xxhash.{algorithm}{form}"
                for algorithm in ("xxh32", "xxh64", "xxh3_64", "xxh3_128", "xxh128")
                for form in ("", "_digest", "_intdigest", "_hexdigest")
            ),
        ),
        sized_by_input=True,
        light_when_short=True,
    ),
    KnowledgeSet(
        "password-hashing",
        True,
        "Password hashing and key derivation, slow by design (`bcrypt.hashpw` / `checkpw`, "
        "`hashlib.pbkdf2_hmac`, `hashlib.scrypt`): each call costs tens to hundreds of milliseconds "
        "whatever its input.",
        _calls(
            "hashes a password (slow by design)",
            "bcrypt.hashpw",
            "bcrypt.checkpw",
            "bcrypt.kdf",
            "hashlib.pbkdf2_hmac",
            "hashlib.scrypt",
        ),
    ),
    KnowledgeSet(
        "deserialization",
        True,
        "Unpickling a whole blob (`pickle.loads`, `cloudpickle.loads`).",
        _calls("unpickles a whole blob", "pickle.loads", "cloudpickle.loads", "dill.loads"),
        sized_by_input=True,
    ),
    KnowledgeSet(
        "sqlite",
        True,
        "Synchronous `sqlite3` queries, on a receiver named as a connection or cursor "
        "(`conn.execute`, `cursor.fetchall`). An `aiosqlite` call is awaited, which never matches. "
        "`sqlite3.connect` is not one: it opens the file, and the first statement reads the schema "
        "and pages (the statements are the cost).",
        _calls(
            "makes a database query",
            "*conn.execute",
            "*connection.execute",
            "*cursor.execute",
            "*cur.execute",
            "*conn.executemany",
            "*cursor.executemany",
            "*conn.executescript",
            "*conn.commit",
            "*connection.commit",
            "*cursor.fetchall",
            "*cursor.fetchone",
            "*cursor.fetchmany",
            "*cur.fetchall",
            "*cur.fetchone",
            "*conn.execute().fetchall",
            "*conn.execute().fetchone",
        ),
        light_by_evidence=(
            "Cheap where the source shows one row or no work of its own: a keyed `SELECT` fetched by"
            " `fetchone()`, a `PRAGMA` setting, a context manager's `commit()` after its `yield`."
        ),
    ),
    KnowledgeSet(
        "grammar-compilation",
        True,
        "Compiling a structured-output grammar per request: `xgrammar`'s `GrammarCompiler.compile_*` and "
        "`Grammar.from_*`, `outlines`' generators and guides.",
        _calls(
            "compiles a grammar",
            "*.compile_json_schema",
            "*.compile_grammar",
            "*.compile_regex",
            "*.compile_builtin_json_grammar",
            "*.compile_structural_tag",
            "xgrammar.Grammar.from_ebnf",
            "xgrammar.Grammar.from_json_schema",
            "xgrammar.Grammar.from_regex",
            "outlines.generate.json",
            "outlines.generate.regex",
            "outlines.generate.choice",
            "outlines.generate.cfg",
            "outlines.generate.format",
            "outlines.fsm.guide.RegexGuide",
            "outlines.fsm.guide.RegexGuide.from_regex",
            "outlines.fsm.guide.CFGGuide",
            "outlines.processors.JSONLogitsProcessor",
            "outlines.processors.RegexLogitsProcessor",
            "outlines.processors.CFGLogitsProcessor",
        ),
    ),
    KnowledgeSet(
        "sync-rpc",
        True,
        "Synchronous RPC clients: `rpyc` connections and calls through `conn.root`, and calls of a "
        "CamelCase method on a receiver named as a stub (`self.stub.Generate(request)`): a sync gRPC stub "
        "blocks, a `grpc.aio` stub's call is awaited, which never matches.",
        _calls(
            "waits for a remote call",
            "rpyc.connect",
            "rpyc.classic.connect",
            "rpyc.connect_by_service",
            "*conn.root.*",
            "*connection.root.*",
            "*stub.[A-Z]*",
            "*channel_ready_future().result",
        ),
    ),
    KnowledgeSet(
        "memory-reclaim",
        True,
        "Reclaiming memory on the request path: `gc.collect()` walks every object, "
        "`torch.cuda.empty_cache()` waits for the GPU and returns its cached blocks.",
        _calls("walks every live object", "gc.collect")
        + _calls("syncs with the GPU to free its cache", "torch.cuda.empty_cache"),
    ),
    KnowledgeSet(
        "uploads",
        True,
        "An uploaded file read through its sync file object (`upload.file.read()`, FastAPI / Starlette "
        "`UploadFile`) where `await upload.read()` offloads it.",
        _calls("reads an upload synchronously", "*.file.read"),
        light_by_evidence=(
            "Cheap when the size read is one the source fixes (`upload.file.read(len(MAGIC))`, a header)."
        ),
    ),
    KnowledgeSet(
        "file-io",
        True,
        "Reading and writing whole files: `open`, `Path.read_text` / `read_bytes` / `write_*`, "
        "`json.load`, `torch.load`, `safetensors`' `load_file`; removing or copying a tree (`shutil.rmtree`).",
        _calls(
            "reads or writes a file",
            "open",
            "io.open",
            "*.read_text",
            "*.read_bytes",
            "*.write_text",
            "*.write_bytes",
            "json.load",
            "pickle.load",
            "torch.load",
            "torch.save",
            "safetensors.torch.load_file",
            "numpy.load",
        )
        + _calls("walks and changes a directory tree", "shutil.rmtree", "shutil.copytree"),
        light_by_evidence=(
            "A `write_text` / `write_bytes` of a text the source fixes (a literal, a constant, the JSON of a"
            " literal of those: a start script, a marker) is cheap: a few hundred bytes into the page cache."
        ),
        evidence_patterns=("*.write_text", "*.write_bytes"),
    ),
)


# ------------------------------------------------------------ knowledge keyed on types

# A type-keyed pattern is ``provenance::method``: what made the receiver
# (mmlint.analysis.values: "transformers.AutoTokenizer.from_pretrained()",
# "requests.Session()", "zmq.Context().socket()") and the method called on it
# (``__call__`` for the receiver called itself), so the receiver's name does
# not matter: ``self._tok_ref(text)`` tokenizes when ``_tok_ref`` holds a tokenizer.
TYPE_SEPARATOR = "::"
# The provenance of a value of unknown origin (an unannotated parameter): its
# attributes keep their names, `<unknown>.tokenizer` (a processor's tokenizer).
UNKNOWN_ORIGIN = "<unknown>"


@dataclass(frozen=True, slots=True)
class KnownType:
    set_name: str  # the KnowledgeSet it belongs to: on and off with it
    provenances: tuple[str, ...]  # fnmatch patterns over a receiver's provenance
    methods: tuple[str, ...]  # its costly methods ("__call__": calling it)
    reason: str
    sized_by_input: bool = False  # as KnowledgeSet.sized_by_input

    @property
    def patterns(self) -> tuple[str, ...]:
        return tuple(
            f"{provenance}{TYPE_SEPARATOR}{method}" for provenance in self.provenances for method in self.methods
        )


_TOKENIZER_METHODS = (
    "__call__",
    "encode",
    "decode",
    "batch_decode",
    "batch_encode_plus",
    "encode_plus",
    "encode_batch",
    "decode_batch",
    "tokenize",
    "convert_ids_to_tokens",
    "convert_tokens_to_string",
    "apply_chat_template",
)
_HTTP_METHODS = ("get", "post", "put", "patch", "delete", "head", "options", "request", "send", "stream", "urlopen")
_ZMQ_RECEIVES = ("recv", "recv_multipart", "recv_pyobj", "recv_json", "recv_string", "recv_serialized", "poll")

KNOWN_TYPES: tuple[KnownType, ...] = (
    KnownType(
        "tokenizers",
        (
            "transformers.*Tokenizer*()",
            "tokenizers.*()",
            "*.get_tokenizer()",
            "<unknown>.tokenizer",
            "<unknown>._tokenizer",
        ),
        _TOKENIZER_METHODS,
        _TOKENIZE,
        sized_by_input=True,
    ),
    KnownType(
        "tokenizers",
        ("transformers.*Processor*()", "transformers.*FeatureExtractor*()"),
        ("__call__", "preprocess", "batch_decode", "decode", "apply_chat_template"),
        "runs a Hugging Face processor",
    ),
    KnownType(
        "http-sync",
        (
            "requests.Session()",
            "requests.session()",
            "requests.sessions.Session()",
            "httpx.Client()",
            "urllib3.PoolManager()",
        ),
        _HTTP_METHODS,
        "waits for a network round trip",
    ),
    KnownType(
        "zmq-sync",
        ("zmq.Context().socket()", "zmq.Context.instance().socket()", "zmq.Socket()", "zmq.sugar.*.socket()"),
        _ZMQ_RECEIVES,
        "waits on a synchronous ZeroMQ socket",
    ),
    KnownType(
        "image-processing",
        ("PIL.Image.open()", "PIL.Image.new()", "PIL.Image.fromarray()", "PIL.Image.frombytes()", "PIL.Image.Image()"),
        ("load", "convert", "resize", "thumbnail", "transpose", "rotate", "filter", "tobytes", "save"),
        "decodes or transforms a PIL image",
    ),
    KnownType(
        "futures",
        ("*Executor().submit()", "*Executor*.submit()", "concurrent.futures.Future()", "*.futures.Future()"),
        ("result",),  # not `exception()`: often read right after `set_exception`, done
        "waits for a future",
    ),
)

_TYPE_CALLS = tuple(
    (known.set_name, KnownCall(pattern, known.reason)) for known in KNOWN_TYPES for pattern in known.patterns
)
_SIZED_TYPE_PATTERNS = frozenset(pattern for known in KNOWN_TYPES if known.sized_by_input for pattern in known.patterns)


def is_type_pattern(pattern: str) -> bool:
    """A pattern keyed on a receiver's provenance (``provenance::method``)."""
    return TYPE_SEPARATOR in pattern


SETS_BY_NAME = {entry.name: entry for entry in KNOWLEDGE_SETS}
DEFAULT_SETS = tuple(entry.name for entry in KNOWLEDGE_SETS if entry.default)


def patterns_of(set_names: tuple[str, ...]) -> tuple[str, ...]:
    """The patterns of the named sets, in the sets' order, each once."""
    chosen = set(set_names)
    seen: dict[str, None] = {}
    for entry in KNOWLEDGE_SETS:
        if entry.name in chosen:
            seen.update((call.pattern, None) for call in entry.calls)
    seen.update((call.pattern, None) for set_name, call in _TYPE_CALLS if set_name in chosen)
    return tuple(seen)


REASONS = {call.pattern: call.reason for entry in KNOWLEDGE_SETS for call in entry.calls}
REASONS.update((call.pattern, call.reason) for _, call in _TYPE_CALLS)
SET_OF_PATTERN = {call.pattern: entry.name for entry in KNOWLEDGE_SETS for call in entry.calls}
SET_OF_PATTERN.update((call.pattern, set_name) for set_name, call in _TYPE_CALLS)
SIZED_BY_INPUT = (
    frozenset(call.pattern for entry in KNOWLEDGE_SETS if entry.sized_by_input for call in entry.calls)
    | _SIZED_TYPE_PATTERNS
)
LIGHT_WHEN_SHORT = frozenset(call.pattern for entry in KNOWLEDGE_SETS if entry.light_when_short for call in entry.calls)
LIGHT_BY_EVIDENCE = frozenset(
    call.pattern
    for entry in KNOWLEDGE_SETS
    if entry.light_by_evidence
    for call in entry.calls
    if not entry.evidence_patterns or call.pattern in entry.evidence_patterns
)


def costs_here(pattern: str, bounded_input: bool, arity: int = 1) -> bool:
    """Whether a call matching ``pattern`` costs what the pattern's set says:
    not when the set's cost grows with the input and this call's input is of
    a size the source fixes (CallFact.bounded_input) or it is given none
    (``hashlib.sha256()``, fed later by ``update``); not when the set's
    calls are light by evidence and the source shows this one is (a keyed
    one-row read: ``bounded_input`` is that evidence for them)."""
    if pattern in LIGHT_BY_EVIDENCE:
        return not bounded_input
    return not ((bounded_input or arity == 0) and pattern in SIZED_BY_INPUT)


# A twin's sync member is heavy by definition (the work its worker pool is
# for), but calling it is MM001's or MM010's finding, never MM005's.
TWIN_REASON = "runs a sync twin's body (the work its worker pool is for)"


def twin_patterns_of(twins: Iterable[TwinPair]) -> tuple[str, ...]:
    """Patterns for the sync member of each twin pair: as a method and as a name."""
    return tuple(pattern for pair in twins for pattern in (f"*.{pair.sync}", pair.sync))


def reason_of(pattern: str, twin_patterns: tuple[str, ...] = ()) -> str:
    """What a matched pattern's call does ("blocks" for a configured one)."""
    if pattern in twin_patterns:
        return TWIN_REASON
    return REASONS.get(pattern, "blocks")
