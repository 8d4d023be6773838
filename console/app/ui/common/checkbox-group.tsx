import { FieldError } from "./states";

/**
 * A fieldset of checkboxes choosing a subset of `options` (scopes, webhook events), with its
 * field error (`<id>-error`) underneath. `value` keeps the order in which options were ticked.
 */
export function CheckboxGroup({
  id,
  legend,
  name,
  options,
  value: selected,
  onChange,
  error,
}: {
  id: string;
  legend: React.ReactNode;
  name: string;
  options: readonly string[];
  value: readonly string[];
  onChange: (selected: string[]) => void;
  error: string | undefined;
}) {
  const errorId = `${id}-error`;
  const toggle = (option: string) =>
    onChange(
      selected.includes(option) ? selected.filter((o) => o !== option) : [...selected, option],
    );
  return (
    <>
      <fieldset aria-describedby={errorId}>
        <legend>{legend}</legend>
        <div className="checks">
          {options.map((option) => (
            <label key={option} className="check">
              <input
                type="checkbox"
                name={name}
                value={option}
                checked={selected.includes(option)}
                onChange={() => toggle(option)}
              />
              {option}
            </label>
          ))}
        </div>
      </fieldset>
      <FieldError id={errorId} message={error} />
    </>
  );
}
