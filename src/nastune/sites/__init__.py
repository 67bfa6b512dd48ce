"""Where nastune works: a Site is this live host, an inventory's NAS measured from its clients,
or the lab (sites/lab/), each behind one interface (sites/base.py) that every workflow takes."""
