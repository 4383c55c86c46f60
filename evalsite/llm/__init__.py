"""The one client for OpenAI-compatible chat endpoints, and what every LLM job shares.

``client`` sends a request (retries, limits, the record of calls, the cache, JSON answers);
``config`` says where a model is and what it costs; ``limits`` holds the backoff and the
concurrency limit; ``record`` the record of calls and the cache; ``answers`` the answer types;
``usage`` sums a job's calls; ``runs`` the worker pool and checkpoint shared by the LLM jobs;
``forms`` the endpoint form of every page that starts one.
"""
