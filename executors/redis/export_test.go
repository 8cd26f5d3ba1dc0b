package redis

// Internals exposed to the external tests.
var (
	CounterKey  = counterKey
	ChannelName = channelName
	KeySlot     = keySlot
	SlotTag     = slotTag
	Evicting    = evicting
)
