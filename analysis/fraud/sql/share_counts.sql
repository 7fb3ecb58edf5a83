-- Card sharing per ordered pair (a acted for b) and kind of decision: chances and hits.
-- A `lead` chance is a hand (with a lead of that kind), its hit a hand with such a lead
-- that only b could beat: in an endgame the seat leads, no opponent can beat, b lets it
-- stand and the seat leads again, one fact counted once (docs/fraud.md).
select game, variant, a, b, sig, stratum,
       case when sig = 'lead' then count(distinct hand_id) else count(*) end as n,
       case when sig = 'lead' then count(distinct hand_id) filter (where hit)
            else count(*) filter (where hit) end as k
from share_chances
group by game, variant, a, b, sig, stratum
order by all
