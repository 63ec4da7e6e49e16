-- Deletes KEYS[1] when owner ARGV[1] holds it IN_PROGRESS; ARGV[2] is the grace in ms.
-- Returns 1 when deleted, 0 otherwise.
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local v = redis.call('GET', KEYS[1])
if not v then return 0 end
local state, exp, owner = string.match(v, '^(%a) (%d+) (%S+)')
if state ~= 'I' or owner ~= ARGV[1] or now >= tonumber(exp) + tonumber(ARGV[2]) then return 0 end
redis.call('DEL', KEYS[1])
return 1
