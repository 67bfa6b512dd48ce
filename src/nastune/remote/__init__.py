"""The NAS and its clients as an Ansible inventory names them, and nastune on the NAS reached
over SSH (its facts, apply, verify, rollback and sampling run there)."""
