-- An operator deletes KEYS[1] whatever its owner: only an IN_PROGRESS record when ARGV[1] is 'I'
-- (releaseLease), any record otherwise (forget). A record that still exists is inside its own
-- grace. Returns 1 when deleted, 0 otherwise.
local v = redis.call('GET', KEYS[1])
if not v then return 0 end
if ARGV[1] == 'I' and string.sub(v, 1, 2) ~= 'I ' then return 0 end
redis.call('DEL', KEYS[1])
return 1
