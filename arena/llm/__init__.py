"""Model seats: a language model behind an OpenAI-compatible chat endpoint plays a seat (`llm:MODEL@URL`).

`prompt` writes what the model sees (a rules summary, the observation as text, the legal moves numbered) and reads
its answer; `store` keeps every request and reply in the run (`RUN/llm/`, by the request's hash) and asks the
endpoint for what the store does not hold; `seat` is the bot itself, its limits and its use of tokens."""
