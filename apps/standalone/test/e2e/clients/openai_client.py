"""The official openai-python SDK against a base URL, as an application would use it.

Usage: openai_client.py BASE_URL API_KEY SCENARIO [HEADER=VALUE ...]
Prints one JSON object: what the client saw (request ids, usage, text, or the error it raised).
"""

import json
import sys
from concurrent.futures import ThreadPoolExecutor

import openai

base_url, api_key, scenario, *extra = sys.argv[1:]
headers = dict(h.split("=", 1) for h in extra)
client = openai.OpenAI(base_url=base_url, api_key=api_key, default_headers=headers, max_retries=0)
messages = [{"role": "user", "content": "Name a prime above 90."}]
tools = [
    {
        "type": "function",
        "function": {
            "name": "lookup",
            "description": "Looks a number up.",
            "parameters": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
        },
    }
]


def request_id(response) -> str:
    return response.headers.get("x-gateway-request-id", "")


def stream_once(end_delay_ms: int) -> dict:
    """Iterates a stream the way applications do; the SDK stops reading and closes at [DONE]."""
    stream = client.chat.completions.create(
        model="gpt-5.4-mini",
        messages=messages,
        stream=True,
        stream_options={"include_usage": True},
        extra_headers={"x-mock-end-delay-ms": str(end_delay_ms)},
    )
    text, usage = "", None
    for chunk in stream:
        if chunk.choices and chunk.choices[0].delta.content:
            text += chunk.choices[0].delta.content
        if chunk.usage:
            usage = {"prompt": chunk.usage.prompt_tokens, "output": chunk.usage.completion_tokens}
    return {"request_id": request_id(stream.response), "text": text, "usage": usage}


def run() -> dict:
    if scenario == "json":
        raw = client.chat.completions.with_raw_response.create(model="gpt-5.4-mini", messages=messages)
        completion = raw.parse()
        return {
            "request_id": request_id(raw),
            "text": completion.choices[0].message.content,
            "usage": {"prompt": completion.usage.prompt_tokens, "output": completion.usage.completion_tokens},
        }
    if scenario == "tools":
        raw = client.chat.completions.with_raw_response.create(
            model="gpt-5.4-mini",
            messages=[
                *messages,
                {
                    "role": "assistant",
                    "tool_calls": [
                        {"id": "call_1", "type": "function", "function": {"name": "lookup", "arguments": '{"n": 97}'}}
                    ],
                },
                {"role": "tool", "tool_call_id": "call_1", "content": "97 is prime"},
            ],
            tools=tools,
        )
        return {"request_id": request_id(raw), "text": raw.parse().choices[0].message.content}
    if scenario == "stream":
        return stream_once(0)
    if scenario.startswith("hang-ups:"):
        # many streams at once, the end of body 0, 2 or 200 ms after [DONE]
        count = int(scenario.split(":")[1])
        with ThreadPoolExecutor(max_workers=12) as pool:
            results = list(pool.map(stream_once, [(0, 2, 200)[i % 3] for i in range(count)]))
        return {"streams": results}
    if scenario == "stream-broken":
        # the upstream breaks off mid-stream: the client must see an error, never a clean end
        try:
            stream_once(0)
            return {"clean_end": True}
        except Exception as error:  # noqa: BLE001 - which class it is is what the test compares
            return {"error": type(error).__name__}
    if scenario.startswith("status:"):
        try:
            client.chat.completions.create(model="gpt-5.4-mini", messages=messages)
            return {"error": None}
        except openai.APIStatusError as error:
            return {"error": type(error).__name__, "status": error.status_code, "body": error.body}
    raise SystemExit(f"unknown scenario {scenario}")


print(json.dumps(run()))
