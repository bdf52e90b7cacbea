/** Checkpoints of the workspace in a git store of minicode's own, and undo. */
export { checkpointSettingsOf, DEFAULT_CHECKPOINT_LIMITS, resolveCheckpointsHome, type CheckpointLimits, type CheckpointSettings } from './settings.js';
export { CheckpointConfigSchema, type CheckpointConfig } from './settings-schema.js';
export { createTurnCheckpoints, type TurnCheckpointOptions, type WorkspaceCheckpoints } from './turn.js';
export { listCheckpoints, undoWorkspace, type CheckpointListing, type UndoOptions, type UndoReport } from './undo.js';
