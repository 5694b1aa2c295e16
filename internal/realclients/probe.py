"""A client that nobody in poolsweep wrote (pymongo) against each URI given.

For each URI it discovers the topology, runs hello (isMaster where the
server has no hello), serverStatus, an insert, a find and an update by _id,
the other shapes a replayed workload sends (a count, an aggregation, a
distinct, a findAndModify), and on a replica set a find with the
secondary read preference. It prints
one line per URI: "ok N key=value ..." or "fail N what went wrong", and
never hangs: every wait is bounded by its own timeout.
"""
import sys
import time

import pymongo
from pymongo import ReadPreference, ReturnDocument
from pymongo.errors import OperationFailure

TIMEOUT_MS = 10000


def probe(uri, prefix):
    out = {"driver": "pymongo-" + pymongo.version}
    client = pymongo.MongoClient(
        uri,
        serverSelectionTimeoutMS=TIMEOUT_MS,
        connectTimeoutMS=TIMEOUT_MS,
        socketTimeoutMS=TIMEOUT_MS,
        retryWrites=False,
    )
    try:
        # Server selection runs discovery; the topology description is
        # what the driver decided the deployment is. pymongo 3.11
        # (Debian's) makes it public only from 4.0
        # (MongoClient.topology_description), and its listeners' events
        # arrive up to a second late.
        client.admin.command("ping")
        kind = client._topology.description.topology_type_name
        out["topology"] = kind
        try:
            hello = client.admin.command("hello")
            out["hello"] = "hello"
        except OperationFailure as e:
            if e.code != 59:  # CommandNotFound: a server before 4.4
                raise
            hello = client.admin.command("isMaster")
            out["hello"] = "isMaster"
        out["msg"] = hello.get("msg", "-")
        out["setName"] = hello.get("setName", "-")
        out["maxWireVersion"] = hello.get("maxWireVersion")
        status = client.admin.command("serverStatus")
        out["process"] = status.get("process")
        out["version"] = status.get("version")
        out["uptime"] = type(status.get("uptime")).__name__
        coll = client.test.user
        _id = prefix + "-1"
        coll.insert_one({"_id": _id, "username": "zhou92001", "password": "abcd"})
        doc = coll.find_one({"_id": _id})
        out["found"] = doc is not None and doc.get("username") == "zhou92001"
        res = coll.update_one({"_id": _id}, {"$set": {"password": "efgh"}})
        out["matched"] = res.matched_count
        out["modified"] = res.modified_count
        doc = coll.find_one({"_id": _id})
        out["updated"] = doc is not None and doc.get("password") == "efgh"
        # A replayed workload's other shapes, on a document of their own.
        _id2 = prefix + "-2"
        coll.insert_one({"_id": _id2, "username": "li2", "password": "abcd"})
        out["count"] = coll.count_documents({"_id": _id2})
        out["aggregate"] = len(list(coll.aggregate([{"$match": {"_id": _id2}}, {"$limit": 1}])))
        out["distinct"] = ",".join(sorted(coll.distinct("username", {"_id": _id2})))
        doc = coll.find_one_and_update({"_id": _id2}, {"$set": {"password": "ijkl"}}, return_document=ReturnDocument.AFTER)
        out["findAndModify"] = doc is not None and doc.get("password") == "ijkl"
        if kind.startswith("ReplicaSet"):
            # Discovery goes on after the first server is selected: wait,
            # for a bounded time, until the driver knows every member the
            # set's hello lists as a secondary.
            want = len(hello["hosts"]) - 1
            deadline = time.monotonic() + TIMEOUT_MS / 1000
            while len(client.secondaries) < want and time.monotonic() < deadline:
                time.sleep(0.01)
            secondaries = {"%s:%d" % a for a in client.secondaries}
            out["secondaries"] = len(secondaries)
            sec = coll.with_options(read_preference=ReadPreference.SECONDARY)
            # The write reaches a secondary after its replication lag: ask
            # until it is there, for a bounded time.
            deadline = time.monotonic() + TIMEOUT_MS / 1000
            while True:
                cur = sec.find({"_id": _id}).limit(1)
                docs = list(cur)
                if docs and docs[0].get("password") == "efgh":
                    break
                if time.monotonic() > deadline:
                    raise RuntimeError("the secondary never showed the update")
                time.sleep(0.01)
            addr = "%s:%d" % cur.address
            out["secondaryRead"] = addr
            out["fromSecondary"] = addr in secondaries
    finally:
        client.close()
    return out


def main():
    failed = False
    for i, uri in enumerate(sys.argv[1:]):
        try:
            res = probe(uri, "py%d" % i)
            print("ok %d %s" % (i, " ".join("%s=%s" % kv for kv in sorted(res.items()))), flush=True)
        except Exception as e:  # every failure is reported, none ends the run
            failed = True
            print("fail %d %s: %s" % (i, type(e).__name__, str(e).replace("\n", " ")), flush=True)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
