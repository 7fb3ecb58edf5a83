-- Dou Dizhu's own per-hand figures for the setting comparisons (`paipu compare`, the
-- report's section; report.FIGURES says them): whether the landlord won, and spring.
select game, hand_id,
       case when landlord is not null and winner is not null then (winning_side = 'landlord')::int end
           as landlord_wins,
       case when not coalesce(redeal, false) then spring::int end as spring  -- (a redeal has no spring to count)
from legal($game, $variant)
