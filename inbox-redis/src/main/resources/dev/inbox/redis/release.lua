-- Deletes KEYS[1] when owner ARGV[1] holds it IN_PROGRESS (a record that still exists is inside
-- its own grace). Returns 1 when deleted, 0 otherwise.
local v = redis.call('GET', KEYS[1])
if not v then return 0 end
local state, exp, owner = string.match(v, '^(%a) (%d+) (%S+)')
if state ~= 'I' or owner ~= ARGV[1] then return 0 end
redis.call('DEL', KEYS[1])
return 1
