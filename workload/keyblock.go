package workload

// agentInsertBlock spaces the agents' insert keys: agent i of a run
// inserts user<n> from its first free index + i·2^40 on, so that agents
// inserting at once never collide (a shared counter in the database would
// put a round trip into every insert).
const agentInsertBlock = 1 << 40

// AgentBlock moves this key space's inserts to agent i's block.
func (k *KeySpace) AgentBlock(i int) {
	k.gapFrom = k.next.Load()
	k.next.Add(int64(i) * agentInsertBlock)
	k.gapTo = k.next.Load()
}

// skipGap maps a key index that falls between the shared keys and this
// agent's block (keys that do not exist) onto the shared keys below, so
// that "latest" keeps reading recent keys that are there.
func (k *KeySpace) skipGap(n int64) int64 {
	if n >= k.gapFrom && n < k.gapTo {
		n -= k.gapTo - k.gapFrom
	}
	return max(n, 0)
}
