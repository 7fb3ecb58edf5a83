-- The toy game's own figure for the setting comparisons (`paipu compare`, the report's
-- section; report.FIGURES says it): the winning margin of each decided legal hand.
select game, hand_id, margin::double as margin
from legal($game, $variant) where winner is not null
