"""The official anthropic SDK against a base URL, as an application would use it.

Usage: anthropic_client.py BASE_URL API_KEY SCENARIO [HEADER=VALUE ...]
Prints one JSON object: what the client saw (request ids, usage, text, or the error it raised).
"""

import json
import sys

import anthropic

base_url, api_key, scenario, *extra = sys.argv[1:]
headers = dict(h.split("=", 1) for h in extra)
client = anthropic.Anthropic(base_url=base_url, api_key=api_key, default_headers=headers, max_retries=0)
model = "claude-sonnet-5"
messages = [{"role": "user", "content": "Name a prime above 90."}]
tools = [
    {
        "name": "lookup",
        "description": "Looks a number up.",
        "input_schema": {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]},
    }
]


def request_id(response) -> str:
    return response.headers.get("x-gateway-request-id", "")


def usage_of(usage) -> dict:
    prompt = usage.input_tokens + (usage.cache_read_input_tokens or 0) + (usage.cache_creation_input_tokens or 0)
    return {"prompt": prompt, "output": usage.output_tokens}


def run() -> dict:
    if scenario == "json":
        raw = client.messages.with_raw_response.create(model=model, max_tokens=64, messages=messages)
        message = raw.parse()
        return {"request_id": request_id(raw), "text": message.content[0].text, "usage": usage_of(message.usage)}
    if scenario == "tools":
        raw = client.messages.with_raw_response.create(
            model=model,
            max_tokens=64,
            tools=tools,
            messages=[
                *messages,
                {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "lookup", "input": {"n": 97}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "97 is prime"}]},
            ],
        )
        return {"request_id": request_id(raw), "text": raw.parse().content[0].text}
    if scenario == "stream":
        with client.messages.stream(model=model, max_tokens=64, messages=messages) as stream:
            text = "".join(stream.text_stream)
            final = stream.get_final_message()
            return {"request_id": request_id(stream.response), "text": text, "usage": usage_of(final.usage)}
    if scenario == "count_tokens":
        raw = client.messages.with_raw_response.count_tokens(model=model, messages=messages)
        return {"request_id": request_id(raw), "input_tokens": raw.parse().input_tokens}
    if scenario == "stream-broken":
        try:
            with client.messages.stream(model=model, max_tokens=64, messages=messages) as stream:
                "".join(stream.text_stream)
            return {"clean_end": True}
        except Exception as error:  # noqa: BLE001 - which class it is is what the test compares
            return {"error": type(error).__name__}
    if scenario.startswith("status:"):
        try:
            client.messages.create(model=model, max_tokens=64, messages=messages)
            return {"error": None}
        except anthropic.APIStatusError as error:
            return {"error": type(error).__name__, "status": error.status_code, "body": error.body}
    raise SystemExit(f"unknown scenario {scenario}")


print(json.dumps(run()))
