"""The hardening both web servers run under: uvicorn with connection deadlines and limits
(``guard``, ``server``), security headers (``headers``) and rate-limited logs (``logs``)."""
