package sim

import (
	"context"
	"fmt"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/wiremessage"
)

// BenchmarkHandlerFindByID measures the server's own cost per point read
// (parse, route, slot booking, store lookup, reply) with service=0, i.e. the
// simulator's ceiling on this machine without sockets or a driver.
func BenchmarkHandlerFindByID(b *testing.B) {
	for _, spec := range []string{"slots=64,service=0s", "shards=3,slots=64,service=0s,router_slots=64,router_cost=0s"} {
		b.Run(spec, func(b *testing.B) {
			f := startSim(b, spec).fronts[0]
			var docs bson.A
			for i := range 1000 {
				docs = append(docs, bson.D{{Key: "_id", Value: fmt.Sprintf("user%06d", i)}, {Key: "f", Value: i}})
			}
			body, _ := bson.Marshal(bson.D{{Key: "insert", Value: "c"}, {Key: "documents", Value: docs}, {Key: "$db", Value: "db"}})
			f.handle(context.Background(), &connState{}, &request{opcode: wiremessage.OpMsg, body: body, db: "db"})
			reqs := make([]*request, 1000)
			for i := range reqs {
				body, _ := bson.Marshal(bson.D{{Key: "find", Value: "c"}, {Key: "filter", Value: bson.D{{Key: "_id", Value: fmt.Sprintf("user%06d", i)}}}, {Key: "limit", Value: int64(1)}, {Key: "singleBatch", Value: true}, {Key: "$db", Value: "db"}})
				reqs[i] = &request{opcode: wiremessage.OpMsg, body: body, db: "db"}
			}
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				cs := &connState{}
				i := 0
				for pb.Next() {
					reply := f.handle(context.Background(), cs, reqs[i%len(reqs)])
					if len(reply) < 50 {
						b.Fatalf("short reply %v", bson.Raw(reply))
					}
					i++
				}
			})
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
		})
	}
}

// BenchmarkDriverFindByID measures a full round trip through driver v2 and
// a socket against service=0, the ceiling of a closed-loop test here.
func BenchmarkDriverFindByID(b *testing.B) {
	d := startSim(b, "slots=64,service=0s")
	loadKeys(b, d.URI())
	coll := connect(b, d.URI(), 16).Database("cal").Collection("c")
	b.ResetTimer()
	b.SetParallelism(4)
	b.RunParallel(func(pb *testing.PB) {
		i := 0
		for pb.Next() {
			if err := coll.FindOne(context.Background(), bson.D{{Key: "_id", Value: fmt.Sprintf("user%06d", i%calibrationKeys)}}).Err(); err != nil {
				b.Fatal(err)
			}
			i++
		}
	})
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "ops/s")
}
