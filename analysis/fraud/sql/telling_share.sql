-- The decisions where a and b acted as card sharers would (hits, both ways), with their kind.
select game, hand_id, idx, a, sig, stratum
from share_chances
where hit and game = $g and ((a = $a and b = $b) or (a = $b and b = $a))
order by hand_id, idx
