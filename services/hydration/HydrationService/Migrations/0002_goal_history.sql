-- The daily goal a user had on each day, so that history measures a past day against the goal
-- of that day, not against today's. A row holds from its local day (in the plan's time zone when
-- it was saved) until the next row's; days before a user's first row count against that first
-- goal.
CREATE TABLE hydration.goals (
    user_id uuid NOT NULL,
    since_day date NOT NULL,
    goal_amount integer NOT NULL CHECK (goal_amount > 0),
    goal_unit text NOT NULL CHECK (goal_unit IN ('ml', 'oz')),
    PRIMARY KEY (user_id, since_day)
);

-- Plans saved before this table existed: their goal is the only one known, so it holds for
-- every day.
INSERT INTO hydration.goals (user_id, since_day, goal_amount, goal_unit)
SELECT user_id, DATE '2000-01-01', goal_amount, goal_unit FROM hydration.plans;
