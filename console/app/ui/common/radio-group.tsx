/**
 * A fieldset of radio buttons choosing one of `options` (each a value and its label). With
 * `segmented` the buttons sit in a row without a frame and the legend is for screen readers only.
 */
export function RadioGroup({
  legend,
  name,
  options,
  value,
  onChange,
  segmented = false,
}: {
  legend: string;
  name: string;
  options: ReadonlyArray<{ value: string; label: string }>;
  value: string;
  onChange: (value: string) => void;
  segmented?: boolean;
}) {
  return (
    <fieldset className={segmented ? "segmented" : undefined}>
      <legend className={segmented ? "visually-hidden" : undefined}>{legend}</legend>
      {options.map((option) => (
        <label key={option.value} className="check">
          <input
            type="radio"
            name={name}
            checked={value === option.value}
            onChange={() => onChange(option.value)}
          />
          {option.label}
        </label>
      ))}
    </fieldset>
  );
}
