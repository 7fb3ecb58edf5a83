-- Every seat of the screened hands in time order: the co-seating screen's availability model.
select game, variant, hand_id, ts, timed, player, count(*) over (partition by game, hand_id) as seats
from fraud_seats order by game, variant, ts, hand_id
