-- Paodekuai's own per-hand figures for the setting comparisons (`paipu compare`, the
-- report's section; report.FIGURES says them): let-goes and 喜钱 bombs.
select game, hand_id, let_goes::double as let_goes, xiqian_bombs::double as xiqian_bombs
from legal($game, $variant)
