-- Guandan's own per-hand figures for the setting comparisons (`paipu compare`, the
-- report's section; report.FIGURES says them): 双下 and the levels gained.
select game, hand_id, double_down::int as double_down, upgrade::double as upgrade
from legal($game, $variant)
