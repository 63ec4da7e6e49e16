-- Reads KEYS[1] for an operator: {server time in ms} when absent, else {time, record, PTTL in ms}.
-- One script, so the time, the record and its time to live are read at one instant on its node.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local v = redis.call('GET', KEYS[1])
if not v then return {now} end
return {now, v, redis.call('PTTL', KEYS[1])}
