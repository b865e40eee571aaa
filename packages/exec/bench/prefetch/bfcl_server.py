"""BFCL reference implementations behind a JSON-lines protocol on stdin/stdout (one request per line).

Requests: {"id", "op": "load", "session", "classes", "config", "long_context"} -> {"calls": [[{name, args}]...]}
when "ground_truth" is given (parsed with ast, positional arguments bound by signature);
{"op": "call", "session", "name", "args"} -> {"result"}; {"op": "state", "session"} -> {"state"};
{"op": "drop", "session"}. Errors come back as {"id", "error"}.
"""
import ast
import importlib
import inspect
import json
import os
import sys
import types

HERE = os.path.dirname(os.path.abspath(__file__))
SOURCE = sys.argv[1]

# The modules import each other as bfcl_eval.eval_checker.multi_turn_eval.func_source_code.<module>.
for name in ["bfcl_eval", "bfcl_eval.eval_checker", "bfcl_eval.eval_checker.multi_turn_eval"]:
    module = types.ModuleType(name)
    module.__path__ = []
    sys.modules[name] = module
package = types.ModuleType("bfcl_eval.eval_checker.multi_turn_eval.func_source_code")
package.__path__ = [SOURCE]
sys.modules[package.__name__] = package

CLASSES = {
    "GorillaFileSystem": "gorilla_file_system",
    "MathAPI": "math_api",
    "MessageAPI": "message_api",
    "TwitterAPI": "posting_api",
    "TicketAPI": "ticket_api",
    "TradingBot": "trading_bot",
    "TravelAPI": "travel_booking",
    "VehicleControlAPI": "vehicle_control",
    "WebSearchAPI": "web_search",
    "MemoryAPI_kv": "memory_kv",
    "MemoryAPI_vector": "memory_vector",
    "MemoryAPI_rec_sum": "memory_rec_sum",
}

sessions = {}


def load_class(name):
    module = importlib.import_module(f"{package.__name__}.{CLASSES[name]}")
    return getattr(module, name)


def plain(value, path=()):
    """JSON form of a value; attributes starting with '_' are private (BFCL's state checker skips them).
    A reference back to an enclosing object (a parent directory) is written as "<cycle>"."""
    if isinstance(value, (str, int, float, bool)) or value is None:
        return value
    if any(value is seen for seen in path):
        return "<cycle>"
    inner = path + (value,)
    if isinstance(value, dict):
        return {str(k): plain(v, inner) for k, v in value.items() if not str(k).startswith("_")}
    if isinstance(value, (list, tuple)):
        return [plain(v, inner) for v in value]
    if isinstance(value, set):
        return sorted(str(plain(v, inner)) for v in value)
    if hasattr(value, "__dict__"):
        return {k: plain(v, inner) for k, v in vars(value).items() if not k.startswith("_")}
    return str(value)


def find_method(session, name):
    for instance in session.values():
        method = getattr(instance, name, None)
        if method is not None and callable(method) and not name.startswith("_"):
            return method
    raise KeyError(f"no function {name} in {', '.join(session)}")


def parse_call(session, text):
    node = ast.parse(text, mode="eval").body
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise ValueError(f"not a call: {text}")
    name = node.func.id
    positional = [ast.literal_eval(a) for a in node.args]
    keywords = {k.arg: ast.literal_eval(k.value) for k in node.keywords}
    if positional:
        bound = inspect.signature(find_method(session, name)).bind_partial(*positional, **keywords)
        keywords = dict(bound.arguments)
    return {"name": name, "args": keywords}


def handle(request):
    op = request["op"]
    if op == "load":
        session = {}
        for cls in request["classes"]:
            instance = load_class(cls)()
            config = request["config"].get(cls, {})
            if not hasattr(instance, "_load_scenario"):
                pass  # stateless (MathAPI)
            elif "long_context" in inspect.signature(instance._load_scenario).parameters:
                instance._load_scenario(json.loads(json.dumps(config)), long_context=request.get("long_context", False))
            else:
                instance._load_scenario(json.loads(json.dumps(config)))
            session[cls] = instance
        sessions[request["session"]] = session
        truth = request.get("ground_truth")
        return {"calls": [[parse_call(session, c) for c in turn] for turn in truth]} if truth is not None else {}
    if op == "call":
        session = sessions[request["session"]]
        try:
            result = find_method(session, request["name"])(**request["args"])
        except Exception as error:  # the reference implementations raise on bad input
            result = {"error": f"{type(error).__name__}: {error}"}
        return {"result": json.loads(json.dumps(result, default=str))}
    if op == "state":
        return {"state": plain({k: v for k, v in sessions[request["session"]].items()})}
    if op == "drop":
        sessions.pop(request["session"], None)
        return {}
    if op == "check":
        missing = []
        for cls in request["classes"]:
            if cls not in CLASSES:
                missing.append(f"{cls}: unknown API class (no module known for it)")
                continue
            try:
                load_class(cls)
            except Exception as error:  # ImportError for a missing module, or any failure at import
                missing.append(f"{cls}: {type(error).__name__}: {error}")
        return {"missing": missing}
    raise ValueError(f"unknown op {op}")


for line in sys.stdin:
    request = json.loads(line)
    try:
        reply = handle(request)
        reply["id"] = request["id"]
    except Exception as error:
        reply = {"id": request["id"], "error": f"{type(error).__name__}: {error}"}
    sys.stdout.write(json.dumps(reply, default=str) + "\n")
    sys.stdout.flush()
